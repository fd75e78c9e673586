import assert from "node:assert/strict";
import { test } from "node:test";
import { normalizePep440, parsePep440Version, pep440Scheme } from "./pep440-version.ts";
import { checkOrderFixture } from "./testdata/order-fixture.ts";
import {
  createRandom,
  editOf,
  pairsOf,
  pep440Candidate,
  pep440Version,
} from "./testdata/random-versions.ts";
import { packagingAnswers } from "./testdata/reference-tools.ts";

test("hand-checked PEP 440 orders hold both ways round, and malformed versions are refused", () => {
  const url = new URL("./testdata/pep440-order.txt", import.meta.url);
  assert.ok(checkOrderFixture(pep440Scheme, url) > 2000);
});

test("spellings normalise to PEP 440's normal form", () => {
  const normal = (text: string) => {
    const parsed = parsePep440Version(text);
    assert.equal(parsed.error, undefined, text);
    return normalizePep440(parsed.value as NonNullable<typeof parsed.value>);
  };
  assert.equal(
    normal("V01!02.003-ALPHA.04_POST-05.DEV06+UBUNTU-007"),
    "1!2.3a4.post5.dev6+ubuntu.7",
  );
  assert.equal(normal("1.0-1"), "1.0.post1");
  assert.equal(normal("1.0c"), "1.0rc0");
  assert.equal(normal("1.0preview2"), "1.0rc2");
  assert.equal(normal("1.0.rev"), "1.0.post0");
  assert.equal(normal("1.0+0abc.007"), "1.0+0abc.7");
  assert.equal(normal("  1.0\n"), "1.0");
});

test("surrounding white space is ignored, inner white space refused", () => {
  assert.equal(pep440Scheme.compareText(" 1.0\t", "1.0").value, 0);
  assert.match(parsePep440Version("1.0 a1").error ?? "", /PEP 440/);
  assert.match(parsePep440Version("   ").error ?? "", /empty/);
});

const random = createRandom(0x5eed_0440);
const pairs = pairsOf(
  random,
  700,
  () => pep440Version(random),
  editOf(random, "0123.-_abcrpostdev+"),
)
  .filter(([a, b]) => pep440Scheme.isValid(a) && pep440Scheme.isValid(b))
  .slice(0, 500);
const candidates = Array.from({ length: 500 }, () => pep440Candidate(random));
const reference = packagingAnswers([...pairs, ...candidates.map((c) => [c])]);

test("PEP 440 order agrees with Python's packaging on 500 generated pairs", {
  skip: reference.skip,
}, () => {
  assert.equal(reference.failure, undefined);
  assert.equal(pairs.length, 500);
  const differences = pairs
    .map(([a, b], i) => ({
      a,
      b,
      packaging: reference.value?.[i],
      lading: String(pep440Scheme.compareText(a, b).value),
    }))
    .filter((d) => d.packaging !== d.lading);
  assert.deepEqual(differences.slice(0, 20), []);
});

test("what packaging refuses, Lading refuses, and both print the same normal form", {
  skip: reference.skip,
}, () => {
  assert.equal(reference.failure, undefined);
  const answers = reference.value?.slice(pairs.length) ?? [];
  const differences = candidates
    .map((text, i) => {
      const parsed = parsePep440Version(text);
      const lading = parsed.error !== undefined ? "invalid" : normalizePep440(parsed.value);
      return { text, packaging: answers[i], lading };
    })
    .filter((d) => d.packaging !== d.lading);
  assert.deepEqual(differences.slice(0, 20), []);
  const refused = answers.filter((a) => a === "invalid").length;
  assert.ok(refused > 50 && refused < 450, `${refused} of 500 candidates refused`);
});
