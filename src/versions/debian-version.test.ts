import assert from "node:assert/strict";
import { test } from "node:test";
import { debianScheme, parseDebianVersion } from "./debian-version.ts";
import { checkOrderFixture, readOrderFixture } from "./testdata/order-fixture.ts";
import { createRandom, debianVersion, editOf, pairsOf } from "./testdata/random-versions.ts";
import { dpkgConfirms, dpkgPerlAnswers } from "./testdata/reference-tools.ts";

const fixture = new URL("./testdata/debian-order.txt", import.meta.url);

test("hand-checked Debian orders hold both ways round, and malformed versions are refused", () => {
  assert.ok(checkOrderFixture(debianScheme, fixture) > 1000);
});

test("a Debian version splits at the first colon and the last hyphen", () => {
  assert.deepEqual(parseDebianVersion("1:2.0-3-4").value, {
    text: "1:2.0-3-4",
    epoch: "1",
    upstream: "2.0-3",
    revision: "4",
  });
  assert.deepEqual(parseDebianVersion("007:1:2").value?.upstream, "1:2");
  assert.equal(parseDebianVersion("007:1").value?.epoch, "7");
  assert.equal(parseDebianVersion("1.0").value?.revision, "");
});

test("refusals say what is wrong", () => {
  const reasons: [string, RegExp][] = [
    ["", /empty/],
    ["1.0 1", /white space/],
    ["x:1.0", /epoch must be an unsigned number/],
    ["4294967296:1", /epoch is too large/],
    ["1.0-", /revision is empty/],
    ["-1", /upstream version is empty/],
    ["v1.0", /must start with a digit/],
    ["1.0_1", /may only contain/],
    ["1:1.0-1:1", /revision may only contain/],
  ];
  for (const [text, reason] of reasons)
    assert.match(parseDebianVersion(text).error ?? "", reason, text);
});

const random = createRandom(0x5eed_deb1);
const generated = pairsOf(random, 700, () => debianVersion(random), editOf(random, "0129ab.+~-:"))
  .filter(([a, b]) => debianScheme.isValid(a) && debianScheme.isValid(b))
  .slice(0, 500);
const perl = dpkgPerlAnswers(generated);

test("Debian order agrees with dpkg's Dpkg::Version on 500 generated pairs", {
  skip: perl.skip,
}, () => {
  assert.equal(perl.failure, undefined);
  assert.equal(generated.length, 500);
  const differences = generated
    .map(([a, b], i) => ({
      a,
      b,
      dpkg: perl.value?.[i],
      lading: String(debianScheme.compareText(a, b).value),
    }))
    .filter((d) => d.dpkg !== d.lading);
  assert.deepEqual(differences.slice(0, 20), []);
});

// The dpkg binary costs a process per pair, so it checks a sample, plus the numbers too long
// for Dpkg::Version, which compares digit runs as Perl numbers.
const sample: [string, string][] = [
  ...generated.slice(0, 40),
  ...readOrderFixture(fixture)
    .pairs.filter((p) => /[0-9]{16}/.test(p.a + p.b))
    .map((p): [string, string] => [p.a, p.b]),
];
const expected = sample.map(([a, b]) => debianScheme.compareText(a, b).value ?? 0);
const binary = dpkgConfirms(sample, expected);

test("dpkg --compare-versions confirms a sample, long numbers included", {
  skip: binary.skip,
}, () => {
  assert.equal(binary.failure, undefined);
  const refused = sample.filter((_, i) => !binary.value?.[i]);
  assert.deepEqual(refused, []);
});
