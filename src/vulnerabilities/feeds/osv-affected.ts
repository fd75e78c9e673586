import {
  type OsvAffected,
  type OsvEvent,
  type OsvRange,
  schemeFor,
  semverScheme,
  type VersionScheme,
} from "../../versions/index.ts";
import { deriveAdvisoryId, isAdvisoryId } from "./advisory-id.ts";
import { isObject } from "./advisory-yaml-event.ts";
import type { AdvisoryEventRecord, AdvisoryRecord } from "./feed-records.ts";
import { parsePackageUrl } from "./package-url.ts";

/** What an `affected[]` entry takes from its record. */
export interface OsvRecordContext {
  id: string;
  /** Normalised; undefined when absent or the zero date. */
  published?: string;
  modified?: string;
  withdrawn?: { time: string; reason: string };
  /** `aliases` then `upstream`, in order, without the id. */
  aliases: string[];
}

/**
 * The time of events of a record with neither a real `published` nor `modified` (a Go
 * repository copy can have both zero): the epoch sorts before every real event, so a later
 * import from the published feed, with real times, supersedes it.
 */
export const unknownTime = "1970-01-01T00:00:00.000Z";

const EVENT_KINDS = ["introduced", "fixed", "last_affected", "limit"] as const;
const APK_ECOSYSTEMS = new Set(["Wolfi", "Chainguard", "Alpine"]);

type Result<T> = { value: T; error?: undefined } | { value?: undefined; error: string };

/** One checked `affected[]` entry: its package and what its ranges say. */
export interface OsvPackageEntry {
  /** `osv:<id>:<ecosystem>:<name>`, plus `:<arch>` when the purl names one. */
  key: string;
  ecosystem: string;
  name: string;
  arch: string;
  fixes: Fix[];
  contested: boolean;
  /** What the entry says about versions, kept for matching installed versions. */
  affected: OsvAffected;
}

/**
 * Checks one `affected[]` entry. Refuses an entry whose ranges cannot be evaluated: an unknown
 * range type, a GIT range without `repo`, or a version the ecosystem's rules do not parse.
 * The error carries the key when the package itself was readable.
 */
export function readOsvAffected(
  raw: unknown,
  id: string,
): Result<OsvPackageEntry> & { key?: string } {
  if (!isObject(raw)) return { error: "an affected entry must be an object" };
  const pkg = raw.package;
  if (!isObject(pkg)) return { error: "package is missing" };
  const { ecosystem, name, purl } = pkg;
  if (typeof ecosystem !== "string" || ecosystem === "") return { error: "ecosystem is missing" };
  if (typeof name !== "string" || name === "") return { error: "package name is missing" };
  if (purl !== undefined && typeof purl !== "string") return { error: "purl must be text" };
  const arch = (purl === undefined ? undefined : parsePackageUrl(purl)?.qualifiers.arch) ?? "";
  const key = `osv:${id}:${ecosystem}:${name}${arch ? `:${arch}` : ""}`;
  const rawRanges = raw.ranges ?? [];
  if (!Array.isArray(rawRanges)) return { error: "ranges must be a list", key };
  const fixes: Fix[] = [];
  let contested = isObject(raw.database_specific) && raw.database_specific.false_positive === true;
  for (const [i, range] of rawRanges.entries()) {
    const checked = checkRange(range, ecosystem);
    if (checked.error !== undefined) return { error: `ranges[${i}]: ${checked.error}`, key };
    fixes.push(...checked.value.fixes);
    contested ||= checked.value.contested;
  }
  const versions = raw.versions ?? [];
  if (!Array.isArray(versions) || versions.some((v) => typeof v !== "string")) {
    return { error: "versions must be a list of text", key };
  }
  const ranges = (rawRanges as Record<string, unknown>[]).map(
    (r): OsvRange => ({
      type: r.type as string,
      ...(typeof r.repo === "string" ? { repo: r.repo } : {}),
      events: (r.events as Record<string, string>[]).map((e) => {
        const kind = EVENT_KINDS.find((k) => e[k] !== undefined) ?? "introduced";
        return { [kind]: e[kind] } as OsvEvent;
      }),
    }),
  );
  // A versions list is kept only when no range can be evaluated: it is usually the ranges
  // enumerated, and can run to thousands of entries.
  const evaluable = ranges.some((r) => r.type !== "GIT");
  const affected: OsvAffected = {
    package: { ecosystem, name, ...(typeof purl === "string" ? { purl } : {}) },
    ranges,
    ...(evaluable || versions.length === 0 ? {} : { versions: versions as string[] }),
  };
  return { value: { key, ecosystem, name, arch, fixes, contested, affected } };
}

/**
 * The AdvisoryRecord of one package of a record, from all its `affected[]` entries (DHI lists
 * a package once per upstream source package): a detection when the record was published, a
 * fix at `modified` when a range has one, and a contested false positive for Chainguard's
 * "introduced 0, fixed 0" export (formats §1.3).
 */
export function osvAdvisory(entries: OsvPackageEntry[], record: OsvRecordContext): AdvisoryRecord {
  const { key, ecosystem, name, arch } = entries[0];
  const advisoryId = isAdvisoryId(record.id) ? record.id : deriveAdvisoryId(key);
  const later = record.modified ?? record.published ?? unknownTime;
  const events: AdvisoryEventRecord[] = [
    {
      timestamp: record.published ?? record.modified ?? unknownTime,
      type: "detection",
      detection: { type: "manual" },
    },
  ];
  const fixed = greatestFix(entries.flatMap((e) => e.fixes));
  if (fixed !== undefined) events.push({ timestamp: later, type: "fixed", fixedVersion: fixed });
  if (entries.some((e) => e.contested)) {
    events.push({
      timestamp: later,
      type: "false-positive-determination",
      falsePositiveType: "vulnerability-record-analysis-contested",
    });
  }
  events.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
  const base = ecosystem.split(":")[0];
  const advisory: AdvisoryRecord = {
    key,
    document: record.id,
    advisoryId,
    artifactName: name,
    artifactType: APK_ECOSYSTEMS.has(base) ? "apk" : base === "DHI" ? "image" : "library",
    artifactArchitecture: arch,
    componentName: "",
    componentType: "",
    componentLocation: "",
    aliases: [...new Set([record.id, ...record.aliases])].filter((a) => a !== advisoryId),
    events,
    packageNamespace: ecosystem.toLowerCase(),
  };
  if (record.withdrawn) advisory.withdrawn = { ...record.withdrawn };
  advisory.affected = entries.map((e) => e.affected);
  return advisory;
}

/** A fixed version as listed, with the rules it was parsed under. */
export interface Fix {
  text: string;
  scheme?: VersionScheme;
  parsed?: unknown;
}

/**
 * Checks one range; returns its fixed versions and whether it is the "0 to 0" marker. A range
 * without events adds nothing (DHI writes such ranges beside a `versions` list).
 */
function checkRange(
  range: unknown,
  ecosystem: string,
): Result<{ fixes: Fix[]; contested: boolean }> {
  if (!isObject(range)) return { error: "a range must be an object" };
  const type = range.type;
  if (type !== "SEMVER" && type !== "ECOSYSTEM" && type !== "GIT") {
    return { error: `unknown range type ${JSON.stringify(type)}` };
  }
  if (type === "GIT" && (typeof range.repo !== "string" || range.repo === "")) {
    return { error: "a GIT range needs repo" };
  }
  const events = range.events;
  if (!Array.isArray(events)) return { error: "events must be a list" };
  // An ecosystem without rules in src/versions cannot be checked; its versions pass as text.
  const scheme =
    type === "SEMVER"
      ? semverScheme
      : type === "ECOSYSTEM"
        ? schemeFor(ecosystem).value
        : undefined;
  const spell = ecosystem.split(":")[0] === "Go" && type === "ECOSYSTEM" ? goSpelling : same;
  const fixes: Fix[] = [];
  let zeroIntroduced = false;
  let zeroFixed = false;
  for (const [i, event] of events.entries()) {
    const kinds = isObject(event) ? EVENT_KINDS.filter((k) => event[k] !== undefined) : [];
    if (kinds.length !== 1) {
      return { error: `events[${i}] needs exactly one of ${EVENT_KINDS.join(", ")}` };
    }
    const kind = kinds[0];
    const text = (event as Record<string, unknown>)[kind];
    if (typeof text !== "string" || text === "") return { error: `events[${i}].${kind} is empty` };
    if (text === "0") {
      if (kind === "introduced") zeroIntroduced = true;
      if (kind === "fixed") zeroFixed = true;
      continue;
    }
    if (kind === "limit" && text === "*") continue;
    const parsed = scheme?.parse(spell(text));
    if (parsed?.error !== undefined) {
      return { error: `${kind} "${text}" is not a ${scheme?.name} version: ${parsed.error}` };
    }
    // A GIT fix is a commit, not a package version, so it makes no fixed event.
    if (kind === "fixed" && type !== "GIT") fixes.push({ text, scheme, parsed: parsed?.value });
  }
  return { value: { fixes, contested: zeroIntroduced && zeroFixed } };
}

/**
 * The version the fix arrived in when ranges list several (branches): the greatest by the
 * ecosystem's order, or the last listed when the fixes are not all under one known scheme.
 */
function greatestFix(fixes: Fix[]): string | undefined {
  if (fixes.length === 0) return undefined;
  const scheme = fixes[0].scheme;
  if (scheme === undefined || fixes.some((f) => f.scheme !== scheme)) return fixes.at(-1)?.text;
  let best = fixes[0];
  for (const fix of fixes) if (scheme.compare(fix.parsed, best.parsed) >= 0) best = fix;
  return best.text;
}

const same = (text: string) => text;
/** OSV writes Go versions without the `v` the go command's rules need. */
const goSpelling = (text: string) => (text.startsWith("v") ? text : `v${text}`);
