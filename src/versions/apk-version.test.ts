import assert from "node:assert/strict";
import { test } from "node:test";
import { apkScheme, parseApkVersion } from "./apk-version.ts";
import { checkOrderFixture } from "./testdata/order-fixture.ts";
import { apkVersion, createRandom } from "./testdata/random-versions.ts";

test("hand-checked apk orders hold both ways round, and malformed versions are refused", () => {
  const url = new URL("./testdata/apk-order.txt", import.meta.url);
  assert.ok(checkOrderFixture(apkScheme, url) > 1500);
});

test("an apk version reads as apk's tokens", () => {
  assert.deepEqual(parseApkVersion("1.02a_rc3_p-r4").value?.tokens, [
    { kind: "number", digits: "1", first: true },
    { kind: "number", digits: "02", first: false },
    { kind: "letter", letter: "a" },
    { kind: "suffix", suffix: "rc" },
    { kind: "suffix-number", digits: "3" },
    { kind: "suffix", suffix: "p" },
    { kind: "revision", digits: "4" },
  ]);
});

test("refusals say what is wrong", () => {
  const reasons: [string, RegExp][] = [
    ["", /empty/],
    ["r1.0", /start with a digit/],
    ["1.0_RC1", /lower case/],
    ["1.0~abc-r0", /commit hash/],
    ["1.0_foo1", /unknown suffix _foo/],
    ["1.0-1", /does not follow/],
  ];
  for (const [text, reason] of reasons)
    assert.match(parseApkVersion(text).error ?? "", reason, text);
});

test("the order is total and consistent on 600 generated versions", () => {
  // No apk reference runs here; sorting checks antisymmetry and transitivity instead.
  const random = createRandom(0x5eed_0a9c);
  const versions = Array.from({ length: 600 }, () => apkVersion(random));
  const parsed = versions.map((v) => {
    const p = parseApkVersion(v);
    assert.equal(p.error, undefined, v);
    return p.value as NonNullable<typeof p.value>;
  });
  const sorted = [...parsed].sort(apkScheme.compare);
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length; j += 7) {
      const order = apkScheme.compare(sorted[i], sorted[j]);
      assert.ok(order <= 0, `${sorted[i].text} sorted before ${sorted[j].text}`);
      assert.equal(apkScheme.compare(sorted[j], sorted[i]) + order, 0);
    }
  }
});
