import type { Kysely } from "kysely";
import { visibleTo } from "../../lists/index.ts";
import { type Call, scopesOf } from "../../rpc/index.ts";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import { type AdvisoryEventRecord, publicAdvisoriesGroupUid } from "../../vulnerabilities/index.ts";
import type { PackageAdvisory } from "../vex/index.ts";

/** Package names looked up per query, well under every database's parameter limit. */
const namesPerQuery = 500;

/**
 * The advisories about packages `names` of an image of organisation `orgUid`: those the
 * organisation may use (the public ones and its own, as its vulnerability reports do) that the
 * caller may read (the public ones and those of the groups where it holds advisories.list).
 * Another organisation's advisories never describe this image, whoever asks; withdrawn ones
 * are left out.
 */
export async function packageAdvisories(
  db: Kysely<MetadataSchema>,
  call: Call,
  orgUid: string,
  names: Iterable<string>,
): Promise<PackageAdvisory[]> {
  const scopes = [...(await scopesOf(call, "advisories.list")), publicAdvisoriesGroupUid];
  const all = [...new Set(names)].filter((n) => n !== "");
  const advisories: PackageAdvisory[] = [];
  for (let i = 0; i < all.length; i += namesPerQuery) {
    const rows = await db
      .selectFrom("advisories")
      .select(["advisory_id", "aliases", "artifact_name", "events"])
      .where("artifact_name", "in", all.slice(i, i + namesPerQuery))
      .where("withdrawn_time", "is", null)
      .where((eb) => visibleTo(eb, { scopes }))
      .where((eb) =>
        eb.or([
          eb("parent_uid", "=", publicAdvisoriesGroupUid),
          eb("parent_uid", "=", orgUid),
          eb.and([eb("parent_uid", ">", `${orgUid}/`), eb("parent_uid", "<", `${orgUid}0`)]),
        ]),
      )
      .orderBy("advisory_id")
      .execute();
    for (const row of rows) {
      const events = JSON.parse(row.events) as AdvisoryEventRecord[];
      events.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
      advisories.push({
        advisoryId: row.advisory_id,
        aliases: JSON.parse(row.aliases) as string[],
        artifactName: row.artifact_name,
        events,
      });
    }
  }
  return advisories;
}
