import assert from "node:assert/strict";
import { test } from "node:test";
import { goScheme, parseGoVersion } from "./go-version.ts";
import { checkOrderFixture } from "./testdata/order-fixture.ts";

test("hand-checked Go orders hold both ways round, and non-canonical versions are refused", () => {
  const url = new URL("./testdata/go-order.txt", import.meta.url);
  assert.ok(checkOrderFixture(goScheme, url) > 400);
});

test("the three pseudo-version forms are recognised, with their time and revision", () => {
  const pseudo = (text: string) => parseGoVersion(text).value?.pseudo;
  assert.deepEqual(pseudo("v0.0.0-20191109021931-daa7c04131f5"), {
    time: "20191109021931",
    revision: "daa7c04131f5",
    form: "none",
  });
  assert.deepEqual(pseudo("v1.2.4-0.20200101000000-abcdefabcdef"), {
    time: "20200101000000",
    revision: "abcdefabcdef",
    form: "release",
  });
  assert.deepEqual(pseudo("v3.2.3-rc.1.0.20200101000000-abcdefabcdef+incompatible"), {
    time: "20200101000000",
    revision: "abcdefabcdef",
    form: "prerelease",
  });
  assert.equal(pseudo("v1.2.3"), undefined);
  assert.equal(
    pseudo("v1.2.3-20191109021931-daa7c04131f5"),
    undefined,
    "the bare form needs X.0.0",
  );
  assert.equal(pseudo("v1.0.0-0.2019110902193-daa7c04131f5"), undefined, "thirteen digits");
  assert.equal(pseudo("v1.0.0-1.20191109021931-daa7c04131f5"), undefined, "not .0.");
});

test("refusals say what is wrong", () => {
  const reasons: [string, RegExp][] = [
    ["", /empty/],
    ["1.2.3", /must start with v/],
    ["v1.2", /vMAJOR\.MINOR\.PATCH/],
    ["v1.0.0-01", /leading zero/],
    ["v1.0.0+build", /not canonical/],
    ["v1.5.0+incompatible", /major version 2 or above/],
  ];
  for (const [text, reason] of reasons)
    assert.match(parseGoVersion(text).error ?? "", reason, text);
});
