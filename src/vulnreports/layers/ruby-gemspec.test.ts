import assert from "node:assert/strict";
import { test } from "node:test";
import { PackageURL } from "packageurl-js";
import { rootfsEntries } from "../../../test/support/fixture-rootfs.ts";
import { layer, layersOf } from "../../../test/support/tar-layers.ts";
import { isRubyGemspecPath, parseRubyGemspec } from "./ruby-gemspec.ts";
import { scanImagePackages } from "./scan-image-packages.ts";

const GEMS = "usr/lib/ruby/gems/3.1.0/specifications";
const INTEGRATION = "usr/share/rubygems-integration/all/specifications";

/** The gemspecs Debian 12's packages installed, copied into the fixture (ORIGIN.md). */
const EXPECTED = [
  `pkg:gem/json@2.6.1 ${GEMS}/default/json-2.6.1.gemspec Ruby`,
  `pkg:gem/minitest@5.15.0 ${GEMS}/minitest-5.15.0.gemspec MIT`,
  `pkg:gem/rake@13.0.6 ${INTEGRATION}/rake-13.0.6.gemspec MIT`,
  `pkg:gem/webrick@1.8.1 ${INTEGRATION}/webrick-1.8.1.gemspec Ruby OR BSD-2-Clause`,
];

test("real installed gemspecs: every gem, default gems included, nothing else", async () => {
  const result = await scanImagePackages(layersOf(await layer(await rootfsEntries("ruby-gems"))));
  assert.deepEqual(result.errors, []);
  assert.deepEqual(
    result.packages.map((p) => `${p.purl} ${p.source} ${p.licence}`),
    EXPECTED,
  );
  for (const { purl, ecosystem } of result.packages) {
    assert.equal(PackageURL.fromString(purl).toString(), purl);
    assert.equal(ecosystem, "RubyGems");
  }
});

test("a gemspec without the lines RubyGems writes is an error, and no code is run", () => {
  assert.deepEqual(parseRubyGemspec('Gem::Specification.new do |s|\n  s.name = "x"\nend\n', "a"), {
    packages: [],
    errors: ["a: no s.version string"],
  });
  const computed = parseRubyGemspec('  s.name = "x"\n  s.version = X::VERSION\n', "b");
  assert.deepEqual(computed.errors, ["b: no s.version string"]);
  // A long line of blanks costs one pass, not a backtracking search.
  const long = parseRubyGemspec(`  s.name = "x"\n  s.version = ${" ".repeat(1_000_000)}x\n`, "c");
  assert.deepEqual(long.errors, ["c: no s.version string"]);
});

test("installed specifications are wanted, other gemspecs not", () => {
  assert.ok(isRubyGemspecPath(`${GEMS}/rake-13.0.6.gemspec`));
  assert.ok(isRubyGemspecPath(`${GEMS}/default/json-2.6.1.gemspec`));
  assert.ok(isRubyGemspecPath("usr/local/bundle/specifications/rack-3.0.0.gemspec"));
  assert.ok(!isRubyGemspecPath("app/my_gem.gemspec"));
  assert.ok(!isRubyGemspecPath(`${GEMS}/rake-13.0.6.gemspec.bak`));
});
