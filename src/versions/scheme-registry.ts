import { apkScheme } from "./apk-version.ts";
import { debianScheme } from "./debian-version.ts";
import { goPackageScheme, goScheme } from "./go-version.ts";
import { mavenScheme } from "./maven-version.ts";
import { pep440Scheme } from "./pep440-version.ts";
import { rubyGemsScheme } from "./rubygems-version.ts";
import { semverScheme } from "./semver-version.ts";
import type { Parsed, VersionScheme } from "./version-scheme.ts";

/** Every scheme Lading knows, by name. */
export const versionSchemes: Readonly<Record<string, VersionScheme>> = Object.freeze({
  apk: apkScheme as VersionScheme,
  debian: debianScheme as VersionScheme,
  go: goScheme as VersionScheme,
  maven: mavenScheme as VersionScheme,
  pep440: pep440Scheme as VersionScheme,
  rubygems: rubyGemsScheme as VersionScheme,
  semver: semverScheme as VersionScheme,
});

/**
 * OSV ecosystem names (osv-schema "Defined ecosystems") to schemes. crates.io orders by
 * SemVer precedence: Cargo's own `semver` crate breaks ties on build metadata, which no
 * advisory range relies on.
 */
const ECOSYSTEMS: Record<string, string> = {
  Alpine: "apk",
  Wolfi: "apk",
  Chainguard: "apk",
  Debian: "debian",
  Ubuntu: "debian",
  PyPI: "pep440",
  npm: "semver",
  "crates.io": "semver",
  Maven: "maven",
  Go: "go",
  RubyGems: "rubygems",
};

/** Package URL types (purl-spec) to schemes. */
const PURL_TYPES: Record<string, string> = {
  apk: "apk",
  deb: "debian",
  pypi: "pep440",
  npm: "semver",
  cargo: "semver",
  maven: "maven",
  golang: "go",
  gem: "rubygems",
};

/**
 * The scheme of an OSV ecosystem. The release suffix OSV allows after a colon
 * (`Debian:12`, `Alpine:v3.20`, `Ubuntu:22.04:LTS`) does not change the rules.
 */
export function schemeFor(ecosystem: string): Parsed<VersionScheme> {
  const base = ecosystem.split(":")[0];
  const name = Object.hasOwn(ECOSYSTEMS, base) ? ECOSYSTEMS[base] : undefined;
  if (name === undefined) return { error: `no version rules for OSV ecosystem "${ecosystem}"` };
  return { value: versionSchemes[name] };
}

/** The scheme of a package URL type (`pkg:<type>/…`), case-insensitive as purl types are. */
export function schemeForPurlType(type: string): Parsed<VersionScheme> {
  const key = type.toLowerCase();
  const name = Object.hasOwn(PURL_TYPES, key) ? PURL_TYPES[key] : undefined;
  if (name === undefined) return { error: `no version rules for package URL type "${type}"` };
  // An installed Go package is compared with OSV's versions, written without the `v`.
  if (name === "go") return { value: goPackageScheme as VersionScheme };
  return { value: versionSchemes[name] };
}
