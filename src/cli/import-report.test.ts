import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { progressLine, summaryText } from "./import-report.ts";

function stream(isTTY: boolean) {
  const out = Object.assign(new PassThrough(), { isTTY });
  let text = "";
  out.on("data", (chunk) => {
    text += chunk;
  });
  return { out, text: () => text };
}

test("a terminal gets a progress line with files done/total, records and records/s", () => {
  const tty = stream(true);
  const line = progressLine(tty.out, 3);
  line.update({ files: 3, records: 120 });
  line.done();
  const clear = "\r\u001b[K";
  assert.ok(tty.text().startsWith(`${clear}3/3 files · 120 records · `), tty.text());
  assert.match(tty.text(), /120 records · \d+ records\/s/);
  assert.ok(tty.text().endsWith(clear), "the line is cleared before the summary");
  const pipe = stream(false);
  const quiet = progressLine(pipe.out, 3);
  quiet.update({ files: 3, records: 120 });
  quiet.done();
  assert.equal(pipe.text(), "", "nothing but the summary goes to a pipe or a file");
});

test("the summary counts every kind of outcome and lists each rejection", () => {
  const text = summaryText(
    {
      created: 1,
      updated: 2,
      withdrawn: 3,
      unchanged: 4,
      rejected: 1002,
      rejections: [{ file: "a.yaml", position: "advisories[0] (line 5)", reason: "bad id" }],
    },
    2,
    1012,
  );
  assert.match(
    text,
    /^created 1, updated 2, withdrawn 3, unchanged 4, rejected 1002 \(1012 records in 2\.0 s, 506 records\/s\)\n/,
  );
  assert.match(text, /\nrejected: a\.yaml: advisories\[0\] \(line 5\): bad id\n/);
  assert.match(text, /… and 1001 more rejections\n$/);
});
