import type { Kysely } from "kysely";
import type { Severity } from "../gen/lading/vulnerabilities/v2/advisories_pb.js";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { severityMessage } from "./advisory-message.ts";
import type { SeverityRecord } from "./feeds/feed-records.ts";

/**
 * The severities of each alias list, from the vulnerability metadata of the aliases: one
 * query for a whole page. A type is given once per advisory (the first alias that has it).
 */
export async function severitiesOf(
  db: Kysely<MetadataSchema>,
  aliasLists: readonly string[][],
): Promise<Severity[][]> {
  const ids = [...new Set(aliasLists.flat())];
  const byId = new Map<string, SeverityRecord[]>();
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await db
      .selectFrom("vulnerabilities")
      .select(["id", "severities"])
      .where("id", "in", ids.slice(i, i + 1000))
      .execute();
    for (const row of rows) byId.set(row.id, JSON.parse(row.severities) as SeverityRecord[]);
  }
  return aliasLists.map((aliases) => {
    const seen = new Set<string>();
    const out: Severity[] = [];
    for (const alias of aliases) {
      for (const s of byId.get(alias) ?? []) {
        if (seen.has(s.type)) continue;
        seen.add(s.type);
        out.push(severityMessage(s));
      }
    }
    return out;
  });
}
