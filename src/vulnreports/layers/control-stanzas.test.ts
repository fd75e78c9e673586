import assert from "node:assert/strict";
import { test } from "node:test";
import { readControlStanzas } from "./control-stanzas.ts";

test("stanzas split at blank lines; continuations and ` .` join the previous field", () => {
  const { stanzas, errors } = readControlStanzas(
    "Package: a\nDescription: short\n long\n .\n more\n\n\nPACKAGE: b\r\nClassifier: x\nClassifier: y\n",
  );
  assert.deepEqual(errors, []);
  assert.deepEqual(
    stanzas.map((s) => [s.line, Object.fromEntries(s.fields)]),
    [
      [1, { package: "a", description: "short\nlong\n\nmore" }],
      [8, { package: "b", classifier: "x\ny" }],
    ],
  );
});

test("firstOnly stops at the end of the header block", () => {
  const { stanzas } = readControlStanzas("Name: a\n\nName: body text\n", true);
  assert.deepEqual(
    stanzas.map((s) => s.fields.get("name")),
    ["a"],
  );
});
