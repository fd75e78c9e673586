import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { createBase64Decoder } from "./base64-decoder.ts";

test("decodes base64 split anywhere, as Buffer does", () => {
  for (const size of [0, 1, 2, 3, 4, 5, 100]) {
    const bytes = randomBytes(size);
    const text = Buffer.from(bytes.toString("base64"));
    for (let at = 0; at <= text.length; at++) {
      const decoder = createBase64Decoder();
      const out = Buffer.concat([
        decoder.push(text.subarray(0, at)),
        decoder.push(text.subarray(at)),
        decoder.end(),
      ]);
      assert.deepEqual(out, bytes, `${size} bytes split at ${at}`);
    }
  }
});

test("refuses characters outside the alphabet, inner padding and a cut group", () => {
  const refuses = (pieces: string[], pattern: RegExp) => {
    const decoder = createBase64Decoder();
    assert.throws(() => {
      for (const p of pieces) decoder.push(Buffer.from(p));
      decoder.end();
    }, pattern);
  };
  refuses(["QUJD!A=="], /alphabet/);
  refuses(["QQ==QUJD"], /padding inside/);
  refuses(["QQ==", "QQ=="], /after the padding/);
  refuses(["QUJ"], /multiple of 4/);
  refuses(["QU JD"], /alphabet/);
});
