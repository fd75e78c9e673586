import { type GoPseudoVersion, pseudoVersionOf } from "./go-pseudo-version.ts";
import {
  compareCodeUnits,
  compareDigits,
  createScheme,
  type Ordering,
  type Parsed,
  type VersionScheme,
} from "./version-scheme.ts";

/** A parsed Go module version, `vMAJOR.MINOR.PATCH[-prerelease][+incompatible]`. */
export interface GoVersion {
  text: string;
  major: string;
  minor: string;
  patch: string;
  /** Dot-separated prerelease identifiers; empty for a release. */
  prerelease: string[];
  /** Build metadata identifiers; ignored by the order. */
  build: string[];
  /** Set for a pseudo-version: a commit the module's author never tagged. */
  pseudo?: GoPseudoVersion;
}

const NUMBER = "(0|[1-9][0-9]*)";
const SEMVER = new RegExp(
  `^v${NUMBER}\\.${NUMBER}\\.${NUMBER}(?:-([0-9A-Za-z.-]+))?(?:\\+([0-9A-Za-z.-]+))?$`,
);
const IDENTIFIER = /^[0-9A-Za-z-]+$/;
const NUMERIC = /^[0-9]+$/;

/**
 * Parses SemVer 2.0.0 with the `v` prefix Go requires, numbers of any size. This is the
 * grammar of golang.org/x/mod/semver minus its `v1`/`v1.2` shorthands.
 */
export function parseGoSemver(text: string): Parsed<GoVersion> {
  if (text === "") return { error: "empty" };
  if (!text.startsWith("v")) return { error: "must start with v" };
  const match = SEMVER.exec(text);
  if (!match) return { error: "not vMAJOR.MINOR.PATCH[-pre][+build] without leading zeros" };
  const [, major, minor, patch, pre, meta] = match;
  const prerelease = pre === undefined ? [] : pre.split(".");
  for (const id of prerelease) {
    if (!IDENTIFIER.test(id)) return { error: "empty prerelease identifier" };
    if (NUMERIC.test(id) && id.length > 1 && id.startsWith("0")) {
      return { error: `numeric prerelease identifier ${id} has a leading zero` };
    }
  }
  const build = meta === undefined ? [] : meta.split(".");
  if (build.some((id) => !IDENTIFIER.test(id))) return { error: "empty build identifier" };
  return { value: { text, major, minor, patch, prerelease, build } };
}

/**
 * Parses a Go module version as `go` accepts one in go.mod: canonical semver with `v`, no
 * build metadata except `+incompatible`, which only majors 2 and above may carry (a v2+
 * module that has no go.mod).
 */
export function parseGoVersion(text: string): Parsed<GoVersion> {
  const parsed = parseGoSemver(text);
  if (parsed.error !== undefined) return parsed;
  const version = parsed.value;
  if (version.build.length > 0) {
    if (version.build.join(".") !== "incompatible") {
      return { error: "build metadata other than +incompatible is not canonical" };
    }
    if (version.major === "0" || version.major === "1") {
      return { error: "+incompatible needs major version 2 or above" };
    }
  }
  const pseudo = pseudoVersionOf(version);
  return { value: pseudo ? { ...version, pseudo } : version };
}

/**
 * Orders by semver precedence as the go command does; a pseudo-version is an ordinary
 * prerelease, so it sorts after its base and before the next release.
 */
export function compareGoVersions(a: GoVersion, b: GoVersion): Ordering {
  return (
    compareDigits(a.major, b.major) ||
    compareDigits(a.minor, b.minor) ||
    compareDigits(a.patch, b.patch) ||
    comparePrerelease(a.prerelease, b.prerelease)
  );
}

function comparePrerelease(a: string[], b: string[]): Ordering {
  if (a.length === 0 || b.length === 0) return a.length === b.length ? 0 : a.length === 0 ? 1 : -1;
  for (let i = 0; i < a.length && i < b.length; i++) {
    const order = compareIdentifier(a[i], b[i]);
    if (order !== 0) return order;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Numeric identifiers by value, before alphanumeric ones, which go by ASCII (SemVer §11.4). */
function compareIdentifier(a: string, b: string): Ordering {
  const numA = NUMERIC.test(a);
  const numB = NUMERIC.test(b);
  if (numA && numB) return compareDigits(a, b);
  if (numA !== numB) return numA ? -1 : 1;
  return compareCodeUnits(a, b);
}

/** Go module versions, including pseudo-versions and `+incompatible`. */
export const goScheme: VersionScheme<GoVersion> = createScheme(
  "go",
  parseGoVersion,
  compareGoVersions,
);

/**
 * Go module versions as installed packages and OSV records spell them: OSV's Go records write
 * `0.17.0` and `stdlib` versions `1.21.3` (osv-schema, Go ecosystem) where the go command
 * writes `v0.17.0`, so a missing `v` is supplied before parsing.
 */
export const goPackageScheme: VersionScheme<GoVersion> = createScheme(
  "go",
  (text) => parseGoVersion(text.startsWith("v") ? text : `v${text}`),
  compareGoVersions,
);
