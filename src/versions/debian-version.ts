import {
  compareDigits,
  createScheme,
  type Ordering,
  type Parsed,
  sign,
  type VersionScheme,
} from "./version-scheme.ts";

/** A parsed Debian version, `[epoch:]upstream_version[-debian_revision]`. */
export interface DebianVersion {
  text: string;
  /** Decimal digits without leading zeros; "0" when the version has no epoch. */
  epoch: string;
  upstream: string;
  /** Empty when the version has no revision, which dpkg treats like "0". */
  revision: string;
}

const UPSTREAM = /^[0-9][A-Za-z0-9.+~:-]*$/;
const REVISION = /^[A-Za-z0-9.+~]+$/;

/**
 * Parses a Debian version (Debian Policy §5.6.12). Strict where dpkg only warns: the upstream
 * version must start with a digit and use only the characters Policy allows, because a
 * version dpkg warns about is one no archive would accept.
 */
export function parseDebianVersion(text: string): Parsed<DebianVersion> {
  if (text === "") return { error: "empty" };
  if (/\s/.test(text)) return { error: "contains white space" };
  const colon = text.indexOf(":");
  let epoch = "0";
  let rest = text;
  if (colon >= 0) {
    const digits = text.slice(0, colon);
    if (!/^[0-9]+$/.test(digits)) return { error: "epoch must be an unsigned number" };
    // dpkg stores the epoch in an int; anything larger is refused there too.
    if (Number(digits) > 2147483647) return { error: "epoch is too large" };
    epoch = String(Number(digits));
    rest = text.slice(colon + 1);
  }
  const hyphen = rest.lastIndexOf("-");
  const upstream = hyphen >= 0 ? rest.slice(0, hyphen) : rest;
  const revision = hyphen >= 0 ? rest.slice(hyphen + 1) : "";
  if (upstream === "") return { error: "upstream version is empty" };
  if (hyphen >= 0 && revision === "") return { error: "revision is empty" };
  if (!UPSTREAM.test(upstream)) {
    return /^[0-9]/.test(upstream)
      ? { error: "upstream version may only contain A-Z a-z 0-9 . + ~ - :" }
      : { error: "upstream version must start with a digit" };
  }
  if (hyphen >= 0 && !REVISION.test(revision)) {
    return { error: "revision may only contain A-Z a-z 0-9 . + ~" };
  }
  return { value: { text, epoch, upstream, revision } };
}

/** Orders two Debian versions as `dpkg --compare-versions` does. */
export function compareDebianVersions(a: DebianVersion, b: DebianVersion): Ordering {
  return (
    compareDigits(a.epoch, b.epoch) ||
    compareDebianPart(a.upstream, b.upstream) ||
    compareDebianPart(a.revision, b.revision)
  );
}

/**
 * Compares upstream versions or revisions (Policy §5.6.12): alternating non-digit and digit
 * runs; non-digits by a weight where `~` sorts before everything, even the end of the string,
 * and letters before other characters; digit runs by value.
 */
export function compareDebianPart(a: string, b: string): Ordering {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    while ((i < a.length && !isDigit(a, i)) || (j < b.length && !isDigit(b, j))) {
      const order = weight(a, i) - weight(b, j);
      if (order !== 0) return sign(order);
      i++;
      j++;
    }
    const startA = i;
    const startB = j;
    while (i < a.length && isDigit(a, i)) i++;
    while (j < b.length && isDigit(b, j)) j++;
    const order = compareDigits(a.slice(startA, i) || "0", b.slice(startB, j) || "0");
    if (order !== 0) return order;
  }
  return 0;
}

function isDigit(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
}

/** Weight of the character at `i`: end and digits 0, `~` below, letters, then the rest. */
function weight(s: string, i: number): number {
  if (i >= s.length || isDigit(s, i)) return 0;
  const c = s.charCodeAt(i);
  if (c === 126) return -1;
  if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) return c;
  return c + 256;
}

/** dpkg's rules (Debian, Ubuntu and their derivatives). */
export const debianScheme: VersionScheme<DebianVersion> = createScheme(
  "debian",
  parseDebianVersion,
  compareDebianVersions,
);
