import { createHash, randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import type { Kysely } from "kysely";
import type { BlobStore } from "../src/store/blobs/index.ts";
import type { MetadataSchema } from "../src/store/metadata/index.ts";

const OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
const sha = (b: Buffer) => `sha256:${createHash("sha256").update(b).digest("hex")}`;

/** What {@link seedRegistry} wrote. */
export interface Seeded {
  repoUids: string[];
  /** A kept, tagged manifest whose bytes are in the store: `<repo name>` and its tag. */
  probe: { repo: string; tag: string };
  garbageManifests: number;
  garbageBlobs: number;
}

/**
 * Seeds organisation `orgUid` through the store layer: `manifests` image manifests of
 * `blobsPer` blobs each in 10 repos, every tenth one untagged and older than the grace window
 * (garbage, with its blobs), the rest tagged. Garbage bytes are written to the blob store (the
 * collector deletes them); kept blobs are rows only, since a collection never reads them.
 */
export async function seedRegistry(
  db: Kysely<MetadataSchema>,
  blobs: BlobStore,
  orgUid: string,
  manifests: number,
  blobsPer: number,
): Promise<Seeded> {
  const old = new Date(Date.now() - 3 * 3_600_000).toISOString();
  const repoUids: string[] = [];
  for (let r = 0; r < 10; r++) {
    const uid = `${orgUid}/${randomBytes(8).toString("hex")}`;
    repoUids.push(uid);
    await db
      .insertInto("repos")
      .values({
        uid,
        parent_uid: orgUid,
        root_uid: orgUid,
        name: `bench-${r}`,
        description: "",
        readme: "",
        create_time: old,
        update_time: old,
      })
      .execute();
  }
  let probe: Seeded["probe"] | undefined;
  let garbageBlobs = 0;
  let garbageManifests = 0;
  const batch = { blobs: [] as object[], links: [] as object[], manifests: [] as object[] };
  const refs: object[] = [];
  const tags: object[] = [];
  const flush = async (force: boolean) => {
    if (!force && batch.blobs.length < 1000) return;
    for (let i = 0; i < batch.blobs.length; i += 400) {
      await db
        .insertInto("blobs")
        .values(batch.blobs.slice(i, i + 400) as never)
        .execute();
    }
    for (let i = 0; i < batch.links.length; i += 400) {
      await db
        .insertInto("repo_blobs")
        .values(batch.links.slice(i, i + 400) as never)
        .execute();
    }
    for (let i = 0; i < batch.manifests.length; i += 200) {
      await db
        .insertInto("manifests")
        .values(batch.manifests.slice(i, i + 200) as never)
        .execute();
    }
    for (let i = 0; i < refs.length; i += 400) {
      await db
        .insertInto("manifest_refs")
        .values(refs.slice(i, i + 400) as never)
        .execute();
    }
    for (let i = 0; i < tags.length; i += 200) {
      await db
        .insertInto("tags")
        .values(tags.slice(i, i + 200) as never)
        .execute();
    }
    batch.blobs = [];
    batch.links = [];
    batch.manifests = [];
    refs.length = 0;
    tags.length = 0;
  };
  const puts: Promise<unknown>[] = [];
  // A few writes at a time, each retried once: s3rver under load drops a connection now and then.
  const put = async (bytes: Buffer) => {
    const write = () => blobs.put(Readable.from([bytes]), { expectedDigest: sha(bytes) });
    puts.push(write().catch(write));
    if (puts.length >= 8) await Promise.all(puts.splice(0));
  };
  for (let m = 0; m < manifests; m++) {
    const repoUid = repoUids[m % repoUids.length];
    const garbage = m % 10 === 9;
    const layers = Array.from({ length: blobsPer }, () => randomBytes(64));
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: OCI_MANIFEST,
        config: { mediaType: "application/octet-stream", digest: sha(layers[0]), size: 64 },
        layers: layers
          .slice(1)
          .map((l) => ({ mediaType: "application/octet-stream", digest: sha(l), size: 64 })),
      }),
    );
    const digest = sha(manifest);
    const tagged = !garbage;
    if (garbage || !probe) {
      for (const l of layers) await put(l);
      await put(manifest);
    }
    for (const l of layers) {
      batch.blobs.push({ digest: sha(l), size: 64, create_time: old, last_time: old });
      batch.links.push({ repo_uid: repoUid, digest: sha(l), create_time: old, last_time: old });
      refs.push({ repo_uid: repoUid, manifest_digest: digest, digest: sha(l), kind: "blob" });
    }
    batch.blobs.push({ digest, size: manifest.length, create_time: old, last_time: old });
    batch.manifests.push({
      repo_uid: repoUid,
      digest,
      media_type: OCI_MANIFEST,
      artifact_type: "application/octet-stream",
      subject_digest: null,
      size: manifest.length,
      create_time: old,
      last_time: old,
      refs_recorded: 1,
    });
    if (tagged) {
      const tag = `t${m}`;
      tags.push({
        uid: `${repoUid}/${randomBytes(8).toString("hex")}`,
        parent_uid: repoUid,
        name: tag,
        digest,
        deprecated: 0,
        history_seq: 0,
        create_time: old,
        update_time: old,
      });
      probe ??= { repo: `bench-${m % repoUids.length}`, tag };
    } else {
      garbageManifests += 1;
      garbageBlobs += layers.length + 1;
    }
    await flush(false);
  }
  await Promise.all(puts);
  await flush(true);
  if (!probe) throw new Error("nothing was tagged");
  return { repoUids, probe, garbageManifests, garbageBlobs };
}
