import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { BlobStore } from "../store/blobs/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { recordManifestRefs, refsOfManifest } from "./manifest-refs.ts";

/** Largest manifest read back (the registry accepts no larger one). */
const maxManifestBytes = 4 * 1024 * 1024;

/**
 * Records the references of manifests stored before they were recorded at push time, reading
 * their bytes back from the blob store. One whose bytes are missing or do not parse stays
 * unrecorded, and its repository keeps all its links (see markRepo).
 */
export async function backfillManifestRefs(
  db: Kysely<MetadataSchema>,
  blobs: BlobStore,
  log: Logger,
): Promise<number> {
  const rows = await db
    .selectFrom("manifests")
    .select(["repo_uid", "digest"])
    .where("refs_recorded", "=", 0)
    .execute();
  let recorded = 0;
  for (const row of rows) {
    try {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of await blobs.get(row.digest)) {
        size += (chunk as Buffer).length;
        if (size > maxManifestBytes) throw new Error("manifest too large");
        chunks.push(chunk as Buffer);
      }
      const refs = refsOfManifest(Buffer.concat(chunks));
      if (!refs.value) throw new Error(refs.error);
      await recordManifestRefs(db, row.repo_uid, row.digest, refs.value);
      recorded += 1;
    } catch (err) {
      log.warn({ err, digest: row.digest }, "a manifest's references could not be recorded");
    }
  }
  return recorded;
}
