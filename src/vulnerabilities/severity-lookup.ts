import type { Kysely } from "kysely";
import type { Severity } from "../gen/lading/vulnerabilities/v2/advisories_pb.js";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { severityMessage } from "./advisory-message.ts";
import type { SeverityRecord } from "./feeds/feed-records.ts";
import { type MetadataOwner, metadataOwnerOf, readSeverityView } from "./metadata-view.ts";

/** The aliases of one advisory, and the group it belongs to. */
export interface SeverityQuery {
  aliases: readonly string[];
  /** The advisory's group: its severities are read in that group's owner's view. */
  parentUid: string;
}

/**
 * The severities of each advisory, from the vulnerability metadata of its aliases in the view
 * of the advisory's owner (metadataOwnerOf): a public advisory shows the public metadata to
 * everyone, an organisation's own advisory its organisation's view. One read per owner for a
 * whole page. A type is given once per advisory (the first alias that has it).
 */
export async function severitiesOf(
  db: Kysely<MetadataSchema>,
  queries: readonly SeverityQuery[],
): Promise<Severity[][]> {
  const owners = queries.map((q) => metadataOwnerOf(q.parentUid));
  const views = new Map<MetadataOwner, Map<string, SeverityRecord[]>>();
  for (const owner of new Set(owners)) {
    const ids = queries.filter((_, i) => owners[i] === owner).flatMap((q) => q.aliases);
    const rows = await readSeverityView(db, ids, owner);
    views.set(
      owner,
      new Map([...rows].map(([id, text]) => [id, JSON.parse(text) as SeverityRecord[]])),
    );
  }
  return queries.map((query, i) => {
    const byId = views.get(owners[i]) ?? new Map<string, SeverityRecord[]>();
    const seen = new Set<string>();
    const out: Severity[] = [];
    for (const alias of query.aliases) {
      for (const s of byId.get(alias) ?? []) {
        if (seen.has(s.type)) continue;
        seen.add(s.type);
        out.push(severityMessage(s));
      }
    }
    return out;
  });
}
