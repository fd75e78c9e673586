import assert from "node:assert/strict";
import { test } from "node:test";
import { type MavenItem, mavenScheme, parseMavenVersion } from "./maven-version.ts";
import { checkOrderFixture } from "./testdata/order-fixture.ts";
import { createRandom, editOf, mavenVersion, pairsOf } from "./testdata/random-versions.ts";
import { mavenCompare } from "./testdata/reference-tools.ts";

test("hand-checked Maven orders hold both ways round", () => {
  const url = new URL("./testdata/maven-order.txt", import.meta.url);
  assert.ok(checkOrderFixture(mavenScheme, url) > 2000);
});

/** The item tree in ComparableVersion's own notation, e.g. `[1, [rc, [1]]]`. */
function tree(text: string): string {
  const show = (items: MavenItem[]): string =>
    `[${items.map((i) => (i.kind === "list" ? show(i.items) : i.kind === "number" ? i.digits : i.name)).join(", ")}]`;
  const parsed = parseMavenVersion(text);
  assert.equal(parsed.error, undefined, text);
  return show(parsed.value?.items ?? []);
}

test("versions split into the item trees Maven builds", () => {
  assert.equal(tree("1.0.0"), "[1]");
  assert.equal(tree("1.0-RC1"), "[1, [rc, [1]]]");
  assert.equal(tree("1.0.RC1"), "[1, [rc, [1]]]");
  assert.equal(tree("1.0.x.1"), "[1, 0, x, 1]");
  assert.equal(tree("1.foo.0"), "[1, foo]");
  assert.equal(tree("1a1b2"), "[1, [alpha, [1, [beta, [2]]]]]");
  assert.equal(tree("1.2.final.3"), "[1, 2, , 3]");
  assert.equal(tree("1-1.foo-bar1baz-.1"), "[1, [1, foo, [bar, [1, [baz, [0, 1]]]]]]");
  assert.equal(tree("1.0-final-1"), "[1, [[1]]]");
  assert.equal(tree("007.0000000000000000000042"), "[7, 42]");
});

test("empty text and text outside printable ASCII are refused", () => {
  for (const text of ["", " ", "1.0 ", "\t1", "1.0\n", "1.0ü", "١.٠"]) {
    assert.notEqual(parseMavenVersion(text).error, undefined, JSON.stringify(text));
  }
});

const random = createRandom(0x5eed_3a7e);
const pairs = pairsOf(random, 500, () => mavenVersion(random), editOf(random, "012.-abmrcspx_"));
const reference = mavenCompare(pairs);

test("Maven order agrees with maven-artifact's ComparableVersion on 500 generated pairs", {
  skip: reference.skip,
}, () => {
  assert.equal(reference.failure, undefined);
  const differences = pairs
    .map(([a, b], i) => ({
      a,
      b,
      maven: reference.value?.[i],
      lading: mavenScheme.compareText(a, b).value,
    }))
    .filter((d) => d.maven !== d.lading);
  assert.deepEqual(differences.slice(0, 20), []);
});
