import {
  compareCodeUnits,
  compareDigits,
  createScheme,
  type Ordering,
  type Parsed,
  type VersionScheme,
} from "./version-scheme.ts";

/**
 * One token of an apk version. The kinds are listed in apk's token order: when two versions
 * agree up to a point and then continue with tokens of different kinds, the one continuing
 * with the earlier kind is the greater (`1.0.1` > `1.0a` > `1.0_p1` > `1.0-r1` > `1.0`), except
 * that a pre-release suffix makes its version the smaller.
 */
export type ApkToken =
  | { kind: "number"; digits: string; first: boolean }
  | { kind: "letter"; letter: string }
  | { kind: "suffix"; suffix: ApkSuffix }
  | { kind: "suffix-number"; digits: string }
  | { kind: "revision"; digits: string };

/** A parsed apk version: `digit{.digit}...{letter}{_suffix{N}}...{-rN}`. */
export interface ApkVersion {
  text: string;
  tokens: ApkToken[];
}

/** Suffixes in their order; the four before `cvs` sort before the release. */
export const apkSuffixes = ["alpha", "beta", "pre", "rc", "cvs", "svn", "git", "hg", "p"] as const;
export type ApkSuffix = (typeof apkSuffixes)[number];
const releaseRank = apkSuffixes.indexOf("cvs");

const kindOrder: Record<ApkToken["kind"] | "end", number> = {
  number: 0,
  letter: 1,
  suffix: 2,
  "suffix-number": 3,
  revision: 4,
  end: 5,
};

const GRAMMAR = /^(\d+)((?:\.\d+)*)([a-z]?)((?:_[a-z]+\d*)*)(?:-r(\d+))?$/;
const SUFFIX = /_([a-z]+)(\d*)/g;

/**
 * Parses an apk version as `apk version` reads it. Wolfi's "epoch" is the `-rN` revision;
 * apk has no `N:` epoch. Refuses what not every apk-tools release accepts: a letter followed by
 * more digits (`1.2a3`), a `~hash` part, `-r` without a number, capitals.
 */
export function parseApkVersion(text: string): Parsed<ApkVersion> {
  if (text === "") return { error: "empty" };
  if (!/^\d/.test(text)) return { error: "must start with a digit" };
  if (/[A-Z]/.test(text)) return { error: "letters must be lower case" };
  if (text.includes("~")) return { error: "commit hash parts (~hash) are not supported" };
  const match = GRAMMAR.exec(text);
  if (!match) return { error: "does not follow digit{.digit}...{letter}{_suffix{N}}...{-rN}" };
  const [, first, rest, letter, suffixes, revision] = match;
  const tokens: ApkToken[] = [{ kind: "number", digits: first, first: true }];
  for (const digits of rest.split(".").slice(1))
    tokens.push({ kind: "number", digits, first: false });
  if (letter) tokens.push({ kind: "letter", letter });
  for (const [, name, digits] of suffixes.matchAll(SUFFIX)) {
    if (!(apkSuffixes as readonly string[]).includes(name)) {
      return {
        error: `unknown suffix _${name} (known: ${apkSuffixes.map((s) => `_${s}`).join(" ")})`,
      };
    }
    tokens.push({ kind: "suffix", suffix: name as ApkSuffix });
    if (digits) tokens.push({ kind: "suffix-number", digits });
  }
  if (revision !== undefined) tokens.push({ kind: "revision", digits: revision });
  return { value: { text, tokens } };
}

/** Orders two apk versions token by token, as apk-tools does. */
export function compareApkVersions(a: ApkVersion, b: ApkVersion): Ordering {
  const length = Math.max(a.tokens.length, b.tokens.length);
  for (let i = 0; i < length; i++) {
    const x = a.tokens[i];
    const y = b.tokens[i];
    if (x && y && x.kind === y.kind) {
      const order = compareTokens(x, y);
      if (order !== 0) return order;
      continue;
    }
    if (isPreRelease(x)) return -1;
    if (isPreRelease(y)) return 1;
    return kindOrder[x?.kind ?? "end"] < kindOrder[y?.kind ?? "end"] ? 1 : -1;
  }
  return 0;
}

function compareTokens(x: ApkToken, y: ApkToken): Ordering {
  switch (x.kind) {
    case "number": {
      const other = y as typeof x;
      // A later component with a leading zero reads as a decimal fraction (Gentoo's rule, the
      // source of apk's grammar), so 1.01 < 1.1 and 1.05 < 1.1; text order gives exactly that.
      if (!x.first && (x.digits.startsWith("0") || other.digits.startsWith("0"))) {
        return compareCodeUnits(x.digits, other.digits);
      }
      return compareDigits(x.digits, other.digits);
    }
    case "letter":
      return compareCodeUnits(x.letter, (y as typeof x).letter);
    case "suffix": {
      const rank = apkSuffixes.indexOf(x.suffix) - apkSuffixes.indexOf((y as typeof x).suffix);
      return rank < 0 ? -1 : rank > 0 ? 1 : 0;
    }
    default:
      return compareDigits(x.digits, (y as typeof x).digits);
  }
}

function isPreRelease(token: ApkToken | undefined): boolean {
  return token?.kind === "suffix" && apkSuffixes.indexOf(token.suffix) < releaseRank;
}

/** The rules of `apk version` (Alpine, Wolfi, Chainguard). */
export const apkScheme: VersionScheme<ApkVersion> = createScheme(
  "apk",
  parseApkVersion,
  compareApkVersions,
);
