import {
  compareCodeUnits,
  compareDigits,
  createScheme,
  type Ordering,
  type Parsed,
  type VersionScheme,
} from "./version-scheme.ts";

/** A parsed PEP 440 version, already normalised (PEP 440 "Normalization"). */
export interface Pep440Version {
  text: string;
  epoch: string;
  release: string[];
  pre?: { label: "a" | "b" | "rc"; number: string };
  post?: string;
  dev?: string;
  /** Local segments, lower case, separators gone: `+ubuntu-1` → ["ubuntu", "1"]. */
  local?: string[];
}

const SEP = "[-_.]?";
const NUM = "([0-9]+)";
const PATTERN = new RegExp(
  [
    "^v?",
    `(?:${NUM}!)?`,
    "([0-9]+(?:\\.[0-9]+)*)",
    `(?:${SEP}(alpha|a|beta|b|preview|pre|c|rc)${SEP}${NUM}?)?`,
    `(?:-${NUM}|${SEP}(post|rev|r)${SEP}${NUM}?)?`,
    `(?:${SEP}(dev)${SEP}${NUM}?)?`,
    "(?:\\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?$",
  ].join(""),
);

const PRE_LABELS: Record<string, "a" | "b" | "rc"> = {
  a: "a",
  alpha: "a",
  b: "b",
  beta: "b",
  c: "rc",
  rc: "rc",
  pre: "rc",
  preview: "rc",
};

/**
 * Parses a Python package version as `packaging.version.Version` does: case-insensitive,
 * surrounding white space ignored, alternative spellings and separators accepted and
 * normalised (`1.0-ALPHA.1` is `1.0a1`, `1.0-1` is `1.0.post1`, `1.0.dev` is `1.0.dev0`).
 */
export function parsePep440Version(text: string): Parsed<Pep440Version> {
  const trimmed = text.replace(/^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g, "");
  if (trimmed === "") return { error: "empty" };
  const match = PATTERN.exec(trimmed.toLowerCase());
  if (!match) {
    return { error: "not [N!]N(.N)*[{a|b|rc}N][.postN][.devN][+local] (PEP 440)" };
  }
  const [, epoch, release, preLabel, preNumber, postImplicit, postLabel, postNumber] = match;
  const [devLabel, devNumber, local] = [match[8], match[9], match[10]];
  const version: Pep440Version = {
    text,
    epoch: epoch ?? "0",
    release: release.split("."),
  };
  if (preLabel !== undefined)
    version.pre = { label: PRE_LABELS[preLabel], number: preNumber ?? "0" };
  if (postImplicit !== undefined) version.post = postImplicit;
  else if (postLabel !== undefined) version.post = postNumber ?? "0";
  if (devLabel !== undefined) version.dev = devNumber ?? "0";
  if (local !== undefined) version.local = local.split(/[-_.]/);
  return { value: version };
}

/** Orders two versions as `packaging.version.Version` does (PEP 440 "Summary of ordering"). */
export function comparePep440Versions(a: Pep440Version, b: Pep440Version): Ordering {
  return (
    compareDigits(a.epoch, b.epoch) ||
    compareRelease(a.release, b.release) ||
    comparePhase(a, b) ||
    compareOptional(a.post, b.post, -1) ||
    compareOptional(a.dev, b.dev, 1) ||
    compareLocal(a.local, b.local)
  );
}

/** Releases compare as if padded with zeros: 1.0 == 1.0.0. */
function compareRelease(a: string[], b: string[]): Ordering {
  for (let i = 0; i < a.length || i < b.length; i++) {
    const order = compareDigits(a[i] ?? "0", b[i] ?? "0");
    if (order !== 0) return order;
  }
  return 0;
}

const PHASES = { a: 1, b: 2, rc: 3 } as const;

/**
 * The pre-release position: a developmental release of the final version (`1.0.dev1`) before
 * every pre-release of it, then a, b and rc, then the final release and its post-releases.
 */
function comparePhase(a: Pep440Version, b: Pep440Version): Ordering {
  const rank = (v: Pep440Version) => {
    if (v.pre) return PHASES[v.pre.label];
    return v.post === undefined && v.dev !== undefined ? 0 : 4;
  };
  const order = rank(a) - rank(b);
  if (order !== 0) return order < 0 ? -1 : 1;
  return a.pre && b.pre ? compareDigits(a.pre.number, b.pre.number) : 0;
}

/** Compares optional numbers; `absent` is where a missing one sorts (-1 first, 1 last). */
function compareOptional(a: string | undefined, b: string | undefined, absent: -1 | 1): Ordering {
  if (a === undefined || b === undefined) {
    if (a === b) return 0;
    return a === undefined ? absent : (-absent as Ordering);
  }
  return compareDigits(a, b);
}

/**
 * Local versions: none first; then segment by segment, numbers by value after words, words
 * by text; a longer local after its own prefix (PEP 440 "Local version identifiers").
 */
function compareLocal(a: string[] | undefined, b: string[] | undefined): Ordering {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  for (let i = 0; i < a.length && i < b.length; i++) {
    const numA = /^[0-9]+$/.test(a[i]);
    const numB = /^[0-9]+$/.test(b[i]);
    const order =
      numA && numB
        ? compareDigits(a[i], b[i])
        : numA !== numB
          ? numA
            ? 1
            : -1
          : compareCodeUnits(a[i], b[i]);
    if (order !== 0) return order;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** The normal form PEP 440 prints: `1!2.0rc1.post2.dev3+local.1`. */
export function normalizePep440(v: Pep440Version): string {
  let text = strip(v.epoch) === "0" ? "" : `${strip(v.epoch)}!`;
  text += v.release.map(strip).join(".");
  if (v.pre) text += `${v.pre.label}${strip(v.pre.number)}`;
  if (v.post !== undefined) text += `.post${strip(v.post)}`;
  if (v.dev !== undefined) text += `.dev${strip(v.dev)}`;
  if (v.local) text += `+${v.local.map((s) => (/^[0-9]+$/.test(s) ? strip(s) : s)).join(".")}`;
  return text;
}

function strip(digits: string): string {
  return digits.replace(/^0+(?=.)/, "");
}

/** PEP 440 as `packaging` implements it (PyPI). */
export const pep440Scheme: VersionScheme<Pep440Version> = createScheme(
  "pep440",
  parsePep440Version,
  comparePep440Versions,
);
