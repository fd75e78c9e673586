import {
  compareCodeUnits,
  compareDigits,
  createScheme,
  type Ordering,
  type Parsed,
  type VersionScheme,
} from "./version-scheme.ts";

/** A parsed gem version: its canonical segments, digit runs kept as text to keep any size. */
export interface RubyGemsVersion {
  text: string;
  /** Numbers (`{ digits }`) and letter runs (`{ letters }`), trailing zeros of each part dropped. */
  segments: Segment[];
  /** True when the version has a letter: RubyGems calls it a prerelease. */
  prerelease: boolean;
}

type Segment = { digits: string } | { letters: string };

/** Gem::Version's pattern: numeric release, `.`-separated alphanumerics, one `-` suffix. */
const VERSION = /^[0-9]+(?:\.[0-9a-zA-Z]+)*(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
const SEGMENT = /[0-9]+|[a-zA-Z]+/g;
const MAX_LENGTH = 256;

/**
 * Parses a version as `Gem::Version.new` accepts it: digits, then dot-separated alphanumeric
 * segments, optionally a `-` suffix, which RubyGems reads as `.pre.` (so `1.0-rc1` is
 * `1.0.pre.rc1`). RubyGems turns empty text into "0"; here it is refused, as a package
 * version is never empty. White space and texts longer than 256 characters are refused.
 */
export function parseRubyGemsVersion(text: string): Parsed<RubyGemsVersion> {
  if (text === "") return { error: "empty" };
  if (text.length > MAX_LENGTH) return { error: `longer than ${MAX_LENGTH} characters` };
  if (!VERSION.test(text)) {
    return { error: "not digits, then dot-separated letters and digits, then an optional -suffix" };
  }
  const spelled = text.replaceAll("-", ".pre.");
  const raw = spelled.match(SEGMENT) ?? [];
  const segments: Segment[] = raw.map((s) => (/^[0-9]/.test(s) ? { digits: s } : { letters: s }));
  return { value: { text, segments: canonical(segments), prerelease: /[a-zA-Z]/.test(spelled) } };
}

/**
 * Gem::Version#canonical_segments: the numeric part before the first letter segment and the
 * part from it on each lose their trailing zeros, so `1.0.0` equals `1` and `1.0.pre.0`
 * equals `1.pre`.
 */
function canonical(segments: Segment[]): Segment[] {
  const firstLetters = segments.findIndex((s) => "letters" in s);
  const cut = firstLetters < 0 ? segments.length : firstLetters;
  return [...dropZeros(segments.slice(0, cut)), ...dropZeros(segments.slice(cut))];
}

function dropZeros(part: Segment[]): Segment[] {
  let end = part.length;
  while (end > 0 && isZero(part[end - 1])) end--;
  return part.slice(0, end);
}

const isZero = (s: Segment) => "digits" in s && /^0+$/.test(s.digits);

/**
 * Gem::Version#<=>: segment by segment, a missing one counting as 0; a letter segment sorts
 * before a number (so `1.0.0.pre` < `1.0.0` and `1.a` < `1.0.1`), numbers by value, letters
 * by their bytes (`RC` < `beta` < `rc`).
 */
export function compareRubyGemsVersions(a: RubyGemsVersion, b: RubyGemsVersion): Ordering {
  const length = Math.max(a.segments.length, b.segments.length);
  for (let i = 0; i < length; i++) {
    const left = a.segments[i] ?? ZERO;
    const right = b.segments[i] ?? ZERO;
    if ("letters" in left && "letters" in right) {
      const order = compareCodeUnits(left.letters, right.letters);
      if (order !== 0) return order;
    } else if ("digits" in left && "digits" in right) {
      const order = compareDigits(left.digits, right.digits);
      if (order !== 0) return order;
    } else return "letters" in left ? -1 : 1;
  }
  return 0;
}

const ZERO: Segment = { digits: "0" };

/** RubyGems' Gem::Version (OSV ecosystem `RubyGems`, purl type `gem`). */
export const rubyGemsScheme: VersionScheme<RubyGemsVersion> = createScheme(
  "rubygems",
  parseRubyGemsVersion,
  compareRubyGemsVersions,
);
