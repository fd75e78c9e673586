import { isObject } from "./advisory-yaml-event.ts";
import { baseScoreOf } from "./cvss-score.ts";
import type {
  FeedParser,
  ReferenceRecord,
  SeverityRecord,
  VulnerabilityRecord,
} from "./feed-records.ts";
import { FeedResult } from "./feed-result.ts";
import { isZeroDate, normaliseTimestamp } from "./feed-timestamp.ts";
import {
  type OsvPackageEntry,
  type OsvRecordContext,
  osvAdvisory,
  readOsvAffected,
} from "./osv-affected.ts";

/** The reason every withdrawn OSV record and its advisories carry. */
export const osvWithdrawnReason = "withdrawn by the source";

const SEVERITY_TYPES: Record<string, SeverityRecord["type"]> = {
  CVSS_V2: "CVSS_V2",
  CVSS_V3: "CVSS_V3",
  CVSS_V4: "CVSS_V4",
  Ubuntu: "UBUNTU",
  UBUNTU: "UBUNTU",
};

/**
 * Reads one OSV record (schema 1.x, formats §1.3), or a JSON array of them: one
 * VulnerabilityRecord each, and one AdvisoryRecord per `affected[]` entry. The document of
 * every entry is the record id, so a rejected entry protects only its own record's entries.
 */
export const parseOsv: FeedParser = (input) => {
  const result = new FeedResult(input.file);
  let json: unknown;
  try {
    json = JSON.parse(input.text);
  } catch (error) {
    result.reject(
      input.file,
      jsonErrorLine(error as Error, input.text),
      `not valid JSON: ${(error as Error).message}`,
    );
    return result.done();
  }
  if (!Array.isArray(json)) readRecord(json, "", result);
  else for (const [i, record] of json.entries()) readRecord(record, `[${i}]`, result);
  return result.done();
};

function readRecord(raw: unknown, prefix: string, result: FeedResult): void {
  const where = prefix === "" ? "record" : prefix;
  const id = isObject(raw) ? raw.id : undefined;
  if (!isObject(raw) || typeof id !== "string" || id === "") {
    result.reject(result.file, where, "an OSV record must be an object with an id");
    return;
  }
  const metadata = readMetadata(raw, id);
  if (metadata.error !== undefined) {
    result.reject(id, where, `${id}: ${metadata.error}`);
    return;
  }
  result.vulnerability(metadata.value.vulnerability);
  const affected = raw.affected ?? [];
  if (!Array.isArray(affected)) {
    result.reject(id, where, `${id}: affected must be a list`);
    return;
  }
  // Entries naming the same package are one advisory; a bad entry spoils its package's.
  const packages = new Map<string, OsvPackageEntry[]>();
  const spoiled = new Set<string>();
  for (const [i, entry] of affected.entries()) {
    const position = `${prefix}${prefix === "" ? "" : "."}affected[${i}]`;
    const checked = readOsvAffected(entry, id);
    if (checked.error !== undefined) {
      result.reject(id, position, `${id}: ${checked.error}`);
      if (checked.key !== undefined) spoiled.add(checked.key);
      continue;
    }
    const same = packages.get(checked.value.key);
    if (same) same.push(checked.value);
    else packages.set(checked.value.key, [checked.value]);
  }
  for (const [key, entries] of packages) {
    if (!spoiled.has(key)) result.advisory(osvAdvisory(entries, metadata.value.context));
  }
}

type Metadata = { vulnerability: VulnerabilityRecord; context: OsvRecordContext };

/** The record's own fields; any malformed one refuses the whole record. */
function readMetadata(
  raw: Record<string, unknown>,
  id: string,
): { value: Metadata; error?: undefined } | { value?: undefined; error: string } {
  if (raw.modified === undefined) return { error: "modified is missing" };
  const times: Record<string, string | undefined> = {};
  for (const field of ["published", "modified", "withdrawn"]) {
    const value = raw[field];
    if (value === undefined || isZeroDate(value)) continue;
    const time = normaliseTimestamp(value);
    if ("error" in time) return { error: `${field}: ${time.error}` };
    times[field] = time.value;
  }
  const lists: Record<string, string[]> = {};
  const specific = isObject(raw.database_specific) ? raw.database_specific : {};
  for (const field of ["aliases", "upstream", "cwe_ids"]) {
    const value = field === "cwe_ids" ? specific[field] : raw[field];
    if (value === undefined || value === null) continue;
    if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
      return { error: `${field} must be a list of text` };
    }
    lists[field] = value;
  }
  const references = readReferences(raw.references);
  if (typeof references === "string") return { error: references };
  for (const field of ["summary", "details"]) {
    const value = raw[field];
    if (value !== undefined && typeof value !== "string") return { error: `${field} must be text` };
  }
  const aliases = [...new Set([...(lists.aliases ?? []), ...(lists.upstream ?? [])])];
  const others = aliases.filter((a) => a !== id);
  const withdrawn =
    times.withdrawn === undefined
      ? undefined
      : { time: times.withdrawn, reason: osvWithdrawnReason };
  const vulnerability: VulnerabilityRecord = { id };
  if (typeof raw.summary === "string") vulnerability.summary = raw.summary;
  if (typeof raw.details === "string") vulnerability.details = raw.details;
  if (others.length > 0) vulnerability.aliases = others;
  if (references) vulnerability.references = references;
  const severities = readSeverities(raw.severity);
  // OSV 1.5 lets each affected package carry its own severity instead of the record.
  if (severities.length === 0) severities.push(...affectedSeverities(raw.affected));
  if (severities.length > 0) vulnerability.severities = severities;
  if (lists.cwe_ids?.length) vulnerability.cwes = lists.cwe_ids;
  if (times.published) vulnerability.published = times.published;
  if (times.modified) vulnerability.modified = times.modified;
  if (withdrawn) vulnerability.withdrawn = withdrawn;
  const { published, modified } = times;
  return {
    value: { vulnerability, context: { id, published, modified, withdrawn, aliases: others } },
  };
}

function readReferences(value: unknown): ReferenceRecord[] | undefined | string {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) return "references must be a list";
  const references: ReferenceRecord[] = [];
  for (const reference of value) {
    if (
      !isObject(reference) ||
      typeof reference.url !== "string" ||
      typeof reference.type !== "string"
    ) {
      return "each reference needs a type and a url";
    }
    references.push({ type: reference.type, url: reference.url });
  }
  return references;
}

/** Severities of known types; another type (none in the schema today) is left out, not refused. */
function readSeverities(value: unknown): SeverityRecord[] {
  if (!Array.isArray(value)) return [];
  const severities: SeverityRecord[] = [];
  for (const entry of value) {
    if (!isObject(entry) || typeof entry.score !== "string" || typeof entry.type !== "string")
      continue;
    const type = SEVERITY_TYPES[entry.type];
    if (type !== undefined) severities.push({ type, score: entry.score });
  }
  return severities;
}

/**
 * The severities of a record that has none of its own, from its `affected[].severity` (OSV
 * schema 1.5; the two are exclusive): one per type, the highest base score when packages
 * differ, since the record stands for all of them.
 */
function affectedSeverities(affected: unknown): SeverityRecord[] {
  if (!Array.isArray(affected)) return [];
  const best = new Map<SeverityRecord["type"], { record: SeverityRecord; score: number }>();
  for (const entry of affected) {
    if (!isObject(entry)) continue;
    for (const record of readSeverities(entry.severity)) {
      const score = baseScoreOf(record.type, record.score).value ?? -1;
      const kept = best.get(record.type);
      if (!kept || score > kept.score) best.set(record.type, { record, score });
    }
  }
  return [...best.values()].map((b) => b.record);
}

/**
 * `line N` of a JSON.parse error. V8 names the position for some errors and only quotes the
 * text around the bad token for others; the quote is found in the input to get its line.
 */
function jsonErrorLine(error: Error, text: string): string {
  const lineOf = (offset: number) => `line ${text.slice(0, offset).split("\n").length}`;
  const line = /\(line (\d+) column \d+\)/.exec(error.message);
  if (line) return `line ${line[1]}`;
  const position = /at position (\d+)/.exec(error.message);
  if (position) return lineOf(Number(position[1]));
  const quoted =
    /^Unexpected token '([\s\S])', (?:\.\.\.)?"([\s\S]*?)"(?:\.\.\.)? is not valid JSON$/.exec(
      error.message,
    );
  const at = quoted ? text.indexOf(quoted[2]) : -1;
  if (quoted && at >= 0) return lineOf(at + quoted[2].lastIndexOf(quoted[1]));
  return lineOf(text.length);
}
