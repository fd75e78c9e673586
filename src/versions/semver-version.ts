import { SemVer } from "semver";
import { createScheme, type Ordering, type Parsed, type VersionScheme } from "./version-scheme.ts";

/**
 * Parses a SemVer 2.0.0 version with npm's `semver` package in strict mode, which is npm's own
 * reading of the spec. One leading `v` is accepted, as npm accepts it and as Go and many OSV
 * producers write it; `=`, white space and loose forms (`1.2`, `01.2.3`) are refused. npm also
 * refuses numbers above 2^53 − 1 in the core and texts longer than 256 characters.
 */
export function parseSemver(text: string): Parsed<SemVer> {
  if (text === "") return { error: "empty" };
  if (text.trim() !== text) return { error: "contains leading or trailing white space" };
  try {
    return { value: new SemVer(text) };
  } catch (error) {
    const reason = (error as Error).message;
    const part = /^Invalid (major|minor|patch) version/.exec(reason)?.[1];
    if (part) return { error: `${part} version is above 2^53 - 1` };
    if (reason.startsWith("Invalid Version"))
      return { error: "not MAJOR.MINOR.PATCH[-pre][+build]" };
    return { error: reason };
  }
}

/** Orders by SemVer 2.0.0 precedence (§11): build metadata is ignored. */
export function compareSemver(a: SemVer, b: SemVer): Ordering {
  return a.compare(b);
}

/** SemVer 2.0.0 as npm implements it (npm, crates.io, OSV `SEMVER` ranges). */
export const semverScheme: VersionScheme<SemVer> = createScheme(
  "semver",
  parseSemver,
  compareSemver,
);
