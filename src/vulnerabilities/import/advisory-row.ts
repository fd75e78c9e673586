import { createHash } from "node:crypto";
import type { AdvisoriesTable } from "../../store/metadata/index.ts";
import {
  type AdvisoryEventRecord,
  type AdvisoryRecord,
  advisoryEventTypes,
} from "../feeds/feed-records.ts";

/** An event as stored: the record plus its uid under the advisory. */
export type StoredEvent = AdvisoryEventRecord & { uid: string };

/** Where an import puts what it reads. */
export interface ImportTarget {
  /** The group the advisories belong to. */
  parentUid: string;
  /** Groups the advisories for withdrawal, e.g. "advisories", "osv", or --source NAME. */
  source: string;
  /** Recorded as the advisories' author. */
  author: string;
}

const SOURCE = /^[a-z0-9][a-z0-9._-]{0,62}$/;

/** What a source name must match, as said in errors. */
export const sourceNameRule = "must match ^[a-z0-9][a-z0-9._-]{0,62}$";

/** True for an import source name: lower-case letters, digits, `.`, `_` and `-`, 1–63 long. */
export function isSourceName(name: string): boolean {
  return SOURCE.test(name);
}

/** The bit of `type` in event_mask. */
export function eventBit(type: string): number {
  const index = advisoryEventTypes.indexOf(type as (typeof advisoryEventTypes)[number]);
  return index < 0 ? 0 : 1 << index;
}

/** The columns an advisory record determines (everything but uid and times). */
export type AdvisoryContent = Omit<
  AdvisoriesTable,
  "uid" | "parent_uid" | "create_time" | "update_time" | "withdrawn_time" | "withdrawn_reason"
>;

/**
 * The stored content of `record` for an advisory with uid `uid`. Event uids derive from the
 * advisory uid and the event itself, so re-importing the same timeline gives the same uids.
 */
export function advisoryContent(
  record: AdvisoryRecord,
  uid: string,
  target: ImportTarget,
): AdvisoryContent {
  const events = [...record.events].sort((a, b) =>
    a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0,
  );
  const stored: StoredEvent[] = events.map((event, i) => ({
    uid: `${uid}/${createHash("sha256")
      .update(`${i}\n${JSON.stringify(event)}`)
      .digest("hex")
      .slice(0, 16)}`,
    ...event,
  }));
  const latest = events.at(-1);
  const aliases = [...new Set(record.aliases)];
  const content = {
    advisory_id: record.advisoryId,
    artifact_name: record.artifactName,
    artifact_type: record.artifactType,
    artifact_architecture: record.artifactArchitecture,
    component_name: record.componentName,
    component_type: record.componentType,
    component_location: record.componentLocation,
    package_namespace: record.packageNamespace,
    aliases: JSON.stringify(aliases),
    events: JSON.stringify(stored),
    event_mask: events.reduce((mask, e) => mask | eventBit(e.type), 0),
    latest_event_type: latest?.type ?? "",
    latest_event_time: latest?.timestamp ?? "",
    search_text: [record.artifactName, record.componentName, ...aliases].join("\n").toLowerCase(),
    author: target.author,
    source: target.source,
    source_key: record.key,
    document: record.document,
    affected: record.affected?.length ? JSON.stringify(record.affected) : "",
  };
  // Who imports is not content: the same data from another publisher changes nothing. An
  // empty `affected` stays out of the hash, so rows stored before it existed still compare.
  const { author: _author, affected, ...rest } = content;
  const compared = affected === "" ? rest : { ...rest, affected };
  const hash = createHash("sha256").update(JSON.stringify(compared)).digest("hex");
  return { ...content, content_hash: hash };
}
