import { schemeFor } from "./scheme-registry.ts";
import { semverScheme } from "./semver-version.ts";
import type { Parsed, VersionScheme } from "./version-scheme.ts";

/** One event of an OSV range: exactly one of the four fields. */
export interface OsvEvent {
  introduced?: string;
  fixed?: string;
  last_affected?: string;
  limit?: string;
}

/** An OSV range (`affected[].ranges[]`). */
export interface OsvRange {
  type: string;
  repo?: string;
  events: OsvEvent[];
}

/** The parts of an OSV `affected[]` entry that decide whether a version is affected. */
export interface OsvAffected {
  package?: { ecosystem: string; name?: string; purl?: string };
  ranges?: OsvRange[];
  versions?: string[];
}

/** Why a GIT range cannot answer for a version. */
export const gitRangeRefusal =
  "GIT ranges need a commit graph, which Lading does not have; the entry's ranges and versions list did not settle it";

type Kind = keyof OsvEvent;
const KINDS: Kind[] = ["introduced", "last_affected", "fixed", "limit"];

/**
 * Whether `version` is affected according to one `affected[]` entry: inside any SEMVER or
 * ECOSYSTEM range, or equal (by the ecosystem's order) to an entry of `versions`. A GIT range
 * cannot be evaluated without the repository, so when one is present and nothing else says
 * "affected", the answer is an error rather than a guess.
 */
export function isAffected(version: string, affected: OsvAffected): Parsed<boolean> {
  const ecosystem = affected.package?.ecosystem;
  const ranges = affected.ranges ?? [];
  if (ranges.length === 0 && affected.versions === undefined) {
    return { error: "the affected entry has neither ranges nor versions" };
  }
  let git = false;
  for (const range of ranges) {
    if (range.type === "GIT") {
      git = true;
      continue;
    }
    const inside = isInRange(version, range, ecosystem);
    if (inside.error !== undefined) return inside;
    if (inside.value) return { value: true };
  }
  if (affected.versions?.length) {
    const listed = isListed(version, affected.versions, ecosystem);
    if (listed.error !== undefined) return listed;
    if (listed.value) return { value: true };
  }
  return git ? { error: gitRangeRefusal } : { value: false };
}

/**
 * Whether `version` lies inside one SEMVER or ECOSYSTEM range (osv-schema "Evaluation"):
 * events sorted by version, `introduced` opens, `fixed` closes before itself, `last_affected`
 * closes after itself; several introduced/fixed pairs make several intervals. `"0"` is the
 * start of all versions in any event. `limit` caps the range: the version must be below at
 * least one limit (`"*"` is no limit).
 */
export function isInRange(version: string, range: OsvRange, ecosystem?: string): Parsed<boolean> {
  if (range.type === "GIT") return { error: gitRangeRefusal };
  const rules = rangeScheme(range.type, ecosystem);
  if (rules.error !== undefined) return rules;
  const { scheme, spell } = rules.value;
  const subject = scheme.parse(spell(version));
  if (subject.error !== undefined) {
    return {
      error: `version "${version}" is not a valid ${scheme.name} version: ${subject.error}`,
    };
  }
  const events: { kind: Kind; at: unknown }[] = [];
  for (const event of range.events) {
    const kinds = KINDS.filter((k) => event[k] !== undefined);
    if (kinds.length !== 1)
      return {
        error: "each range event needs exactly one of introduced, fixed, last_affected, limit",
      };
    const kind = kinds[0];
    const text = event[kind] as string;
    if (text === "0" || (kind === "limit" && text === "*")) {
      events.push({ kind, at: text === "0" ? START : END });
      continue;
    }
    const parsed = scheme.parse(spell(text));
    if (parsed.error !== undefined) {
      return { error: `${kind} "${text}" is not a valid ${scheme.name} version: ${parsed.error}` };
    }
    events.push({ kind, at: parsed.value });
  }
  const order = (a: unknown, b: unknown) => {
    if (a === b) return 0;
    if (a === START || b === END) return -1;
    if (a === END || b === START) return 1;
    return scheme.compare(a, b);
  };
  events.sort((x, y) => order(x.at, y.at) || KINDS.indexOf(x.kind) - KINDS.indexOf(y.kind));
  const v = subject.value;
  const limits = events.filter((e) => e.kind === "limit");
  if (limits.length > 0 && !limits.some((e) => order(v, e.at) < 0)) return { value: false };
  let inside = false;
  for (const { kind, at } of events) {
    if (kind === "introduced" && order(v, at) >= 0) inside = true;
    else if (kind === "fixed" && order(v, at) >= 0) inside = false;
    else if (kind === "last_affected" && order(v, at) > 0) inside = false;
  }
  return { value: inside };
}

const START = Symbol("start of all versions");
const END = Symbol("no limit");

/** Membership in `versions[]`: equal by the ecosystem's order, or equal text without one. */
function isListed(version: string, versions: string[], ecosystem?: string): Parsed<boolean> {
  const scheme = ecosystem === undefined ? undefined : schemeFor(ecosystem).value;
  const spell = spelling(ecosystem);
  const subject = scheme?.parse(spell(version));
  if (!scheme || subject?.error !== undefined) return { value: versions.includes(version) };
  return {
    value: versions.some((listed) => {
      const parsed = scheme.parse(spell(listed));
      return parsed.error === undefined
        ? scheme.compare(subject?.value, parsed.value) === 0
        : listed === version;
    }),
  };
}

function rangeScheme(
  type: string,
  ecosystem: string | undefined,
): Parsed<{ scheme: VersionScheme; spell: (text: string) => string }> {
  if (type === "SEMVER") return { value: { scheme: semverScheme as VersionScheme, spell: same } };
  if (type !== "ECOSYSTEM") return { error: `unknown range type "${type}"` };
  if (ecosystem === undefined) return { error: "an ECOSYSTEM range needs the package's ecosystem" };
  const scheme = schemeFor(ecosystem);
  if (scheme.error !== undefined) return scheme;
  return { value: { scheme: scheme.value, spell: spelling(ecosystem) } };
}

const same = (text: string) => text;

/** OSV writes Go versions without the `v` the go command requires (osv-schema, Go ecosystem). */
function spelling(ecosystem: string | undefined): (text: string) => string {
  return ecosystem?.split(":")[0] === "Go" ? (t) => (t.startsWith("v") ? t : `v${t}`) : same;
}
