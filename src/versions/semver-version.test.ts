import assert from "node:assert/strict";
import { test } from "node:test";
import { compareGoVersions, parseGoSemver } from "./go-version.ts";
import { parseSemver, semverScheme } from "./semver-version.ts";
import { checkOrderFixture } from "./testdata/order-fixture.ts";
import { createRandom, editOf, pairsOf, semverVersion } from "./testdata/random-versions.ts";

test("hand-checked SemVer orders hold both ways round, and malformed versions are refused", () => {
  const url = new URL("./testdata/semver-order.txt", import.meta.url);
  assert.ok(checkOrderFixture(semverScheme, url) > 900);
});

test("refusals say what is wrong", () => {
  assert.match(parseSemver("").error ?? "", /empty/);
  assert.match(parseSemver(" 1.0.0").error ?? "", /white space/);
  assert.match(parseSemver("1.0").error ?? "", /MAJOR\.MINOR\.PATCH/);
  assert.match(parseSemver("9007199254740992.0.0").error ?? "", /major version is above 2\^53/);
  assert.match(parseSemver(`1.0.0-${"a".repeat(260)}`).error ?? "", /longer than 256/);
});

test("npm's semver and Lading's own Go semver core agree on 500 generated pairs", () => {
  // semver is npm's implementation; the Go scheme has its own core, so each checks the other.
  const random = createRandom(0x5eed_5e3e);
  const pairs = pairsOf(random, 700, () => semverVersion(random), editOf(random, "0129.-+ab"));
  let compared = 0;
  for (const [a, b] of pairs) {
    const go = [parseGoSemver(`v${a}`), parseGoSemver(`v${b}`)];
    assert.equal(semverScheme.isValid(a), go[0].error === undefined, a);
    assert.equal(semverScheme.isValid(b), go[1].error === undefined, b);
    if (go[0].value === undefined || go[1].value === undefined || compared === 500) continue;
    compared++;
    const expected = semverScheme.compareText(a, b).value;
    assert.equal(compareGoVersions(go[0].value, go[1].value), expected, `${a} vs ${b}`);
  }
  assert.equal(compared, 500);
});
