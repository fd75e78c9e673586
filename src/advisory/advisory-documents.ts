import { create, type MessageInitShape } from "@bufbuild/protobuf";
import type { Kysely } from "kysely";
import { invalidArgument } from "../errors/index.ts";
import {
  type Document,
  DocumentAdvisorySchema,
  DocumentEventSchema,
  DocumentSchema,
  type ListDocumentsRequest,
} from "../gen/lading/advisory/v2/security_advisory_pb.js";
import type { MetadataSchema } from "../store/metadata/index.ts";
import {
  eventOneof,
  publicAdvisoriesGroupUid,
  type StoredEvent,
  splitValues,
} from "../vulnerabilities/index.ts";
import { advisoryDomain, maxIdLength } from "./advisory-context.ts";

type DocumentEventInit = MessageInitShape<typeof DocumentEventSchema>;

/** Most CVE ids one ListDocuments call takes. */
export const maxDocumentCves = 100;
/** Most advisories one ListDocuments answer holds (it is not paginated). */
export const maxDocumentAdvisories = 10000;

/**
 * The public advisory documents (one per origin package) of package `id` and/or of the CVEs
 * (matched through their aliases both ways). Withdrawn advisories are left out.
 */
export async function listDocuments(
  db: Kysely<MetadataSchema>,
  req: ListDocumentsRequest,
): Promise<Document[]> {
  const cves = splitValues(req.cves);
  const violations = [];
  if (req.id === "" && cves.length === 0)
    violations.push({ field: "id", description: "id or cves is required" });
  if (cves.length > maxDocumentCves)
    violations.push({ field: "cves", description: `takes at most ${maxDocumentCves} ids` });
  if (req.id.length > maxIdLength)
    violations.push({ field: "id", description: `must be at most ${maxIdLength} characters` });
  if (cves.some((id) => id.length > maxIdLength))
    violations.push({ field: "cves", description: `ids are at most ${maxIdLength} characters` });
  if (violations.length > 0) throw invalidArgument(advisoryDomain, violations);

  let query = db
    .selectFrom("advisories")
    .select(["artifact_name", "advisory_id", "aliases", "events", "package_namespace"])
    .where("parent_uid", "=", publicAdvisoriesGroupUid)
    .where("withdrawn_time", "is", null);
  if (req.id !== "") query = query.where("artifact_name", "=", req.id);
  if (cves.length > 0) {
    const related = await db
      .selectFrom("vulnerability_aliases")
      .select("alias")
      .where("id", "in", cves)
      .execute();
    const ids = [...new Set([...cves, ...related.map((r) => r.alias)])];
    query = query.where("uid", "in", (eb) =>
      eb.selectFrom("advisory_aliases").select("advisory_uid").where("alias", "in", ids),
    );
  }
  const rows = await query
    .orderBy("artifact_name")
    .orderBy("advisory_id")
    .limit(maxDocumentAdvisories)
    .execute();
  const documents = new Map<string, Document>();
  for (const row of rows) {
    let document = documents.get(row.artifact_name);
    if (!document) {
      document = create(DocumentSchema, { id: row.artifact_name });
      documents.set(row.artifact_name, document);
    }
    const events = (JSON.parse(row.events) as StoredEvent[]).filter((e) => e.type !== "patched");
    document.advisories.push(
      create(DocumentAdvisorySchema, {
        id: row.advisory_id,
        aliases: JSON.parse(row.aliases) as string[],
        packageNamespace: row.package_namespace,
        events: events.map((e) =>
          create(
            // The document event's oneof is the advisory event's without `patched`.
            DocumentEventSchema,
            { timestamp: e.timestamp, type: eventOneof(e) as DocumentEventInit["type"] },
          ),
        ),
      }),
    );
  }
  return [...documents.values()];
}
