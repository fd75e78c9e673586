import type { Kysely } from "kysely";
import { type EventActor, recordRpcEvent } from "../events/index.ts";
import { AdvisoriesService } from "../gen/lading/vulnerabilities/v2/advisories_pb.js";
import type { MetadataSchema } from "../store/metadata/index.ts";
import type { ImportResult } from "../vulnerabilities/index.ts";

/**
 * Records `dev.lading.vulnerabilities.advisories.imported.v1` for an import into group
 * `parentUid` made outside the API (`lading admin import`), with the body ImportAdvisories
 * answers (counts, rejections, documents read); subject and Ce-Group the group.
 */
export function recordAdvisoriesImported(
  db: Kysely<MetadataSchema>,
  apiUrl: string,
  actor: EventActor,
  parentUid: string,
  result: ImportResult,
): Promise<void> {
  const { summary, documents } = result;
  return recordRpcEvent(db, {
    service: AdvisoriesService,
    method: "importAdvisories",
    apiUrl,
    actor,
    subject: parentUid,
    body: {
      created: BigInt(summary.created),
      updated: BigInt(summary.updated),
      withdrawn: BigInt(summary.withdrawn),
      unchanged: BigInt(summary.unchanged),
      rejected: BigInt(summary.rejected),
      rejections: summary.rejections,
      documents,
    },
  });
}
