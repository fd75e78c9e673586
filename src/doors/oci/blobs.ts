import { recordBlobDeleted } from "../../events/index.ts";
import { lockBlobs, touchBlob } from "../../lifecycle/index.ts";
import { runInTransaction } from "../../store/metadata/index.ts";
import { clientOf } from "./event-client.ts";
import { requireFreeTier } from "./free-tier.ts";
import { num, type OciContext, type OciRequest, sendStream } from "./oci-context.ts";
import { OciError, ociError } from "./oci-error.ts";
import { requireTerms } from "./terms.ts";

type BlobRoute = { name: string; digest: string };

/**
 * A single `bytes=` range of a blob of `size` bytes (RFC 9110 §14): undefined to send the whole
 * blob (no header, several ranges, or a malformed one), or 416 when it starts past the end.
 */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | undefined {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === "" && match[2] === "")) return undefined;
  if (match[1] === "") {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) throw unsatisfiable(size);
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === "" ? size - 1 : Number(match[2]);
  if (end < start) return undefined;
  if (start >= size) throw unsatisfiable(size);
  return { start, end: Math.min(end, size - 1) };
}

function unsatisfiable(size: number): OciError {
  return new OciError(416, "RANGE_INVALID", "the requested range is not satisfiable", {
    headers: { "content-range": `bytes */${size}` },
  });
}

/**
 * Links `digest` (already stored, `size` bytes, under claim `claimId`) to a repo, in one
 * transaction that ends the claim: from then on the link keeps the bytes (DESIGN §8b).
 */
export async function linkBlob(
  ctx: OciContext,
  repoUid: string,
  digest: string,
  size: number,
  claimId: string,
) {
  await runInTransaction(ctx.db, async (db) => {
    await touchBlob(db, digest, size, claimId);
    const time = new Date().toISOString();
    await db
      .insertInto("repo_blobs")
      .values({ repo_uid: repoUid, digest, create_time: time, last_time: time })
      .onConflict((oc) => oc.columns(["repo_uid", "digest"]).doUpdateSet({ last_time: time }))
      .execute();
  });
}

/**
 * Cross-repo mount: links `digest` to repo `repoUid` if repo `fromUid` has it and no collection
 * is deleting its bytes; returns its size, or undefined (the client then uploads).
 */
export async function mountBlob(
  ctx: OciContext,
  fromUid: string,
  repoUid: string,
  digest: string,
): Promise<number | undefined> {
  return runInTransaction(ctx.db, async (db) => {
    const [blob] = await lockBlobs(db, [digest]);
    if (!blob || blob.doomed) return undefined;
    const source = await db
      .selectFrom("repo_blobs")
      .select("digest")
      .where("repo_uid", "=", fromUid)
      .where("digest", "=", digest)
      .executeTakeFirst();
    if (!source) return undefined;
    const time = new Date().toISOString();
    await db.updateTable("blobs").set({ last_time: time }).where("digest", "=", digest).execute();
    await db
      .insertInto("repo_blobs")
      .values({ repo_uid: repoUid, digest, create_time: time, last_time: time })
      .onConflict((oc) => oc.columns(["repo_uid", "digest"]).doUpdateSet({ last_time: time }))
      .execute();
    return num(blob.size);
  });
}

/** GET and HEAD `/v2/<name>/blobs/<digest>`, streamed, with `Range`. */
export async function getBlob(ctx: OciContext, r: OciRequest, route: BlobRoute) {
  const { caller, target } = await ctx.auth.authorize(r.req.headers.authorization, route.name, [
    "pull",
  ]);
  const repo = target.repo;
  if (!repo) throw ociError(404, "NAME_UNKNOWN", `repository ${route.name} is not known`);
  await requireTerms(ctx, repo.parent_uid);
  const row = await ctx.db
    .selectFrom("repo_blobs")
    .innerJoin("blobs", "blobs.digest", "repo_blobs.digest")
    .select("blobs.size")
    .where("repo_blobs.repo_uid", "=", repo.uid)
    .where("repo_blobs.digest", "=", route.digest)
    .executeTakeFirst();
  if (!row) throw ociError(404, "BLOB_UNKNOWN", `blob ${route.digest} is not known`);
  await requireFreeTier(ctx, caller, { ...target, repo }, (reach) => reach.blobs.has(route.digest));
  const size = num(row.size);
  const range = parseRange(r.req.headers.range, size);
  const headers: Record<string, string | number> = {
    "content-type": "application/octet-stream",
    "docker-content-digest": route.digest,
    "accept-ranges": "bytes",
    etag: `"${route.digest}"`,
    "content-length": range ? range.end - range.start + 1 : size,
  };
  if (range) headers["content-range"] = `bytes ${range.start}-${range.end}/${size}`;
  const status = range ? 206 : 200;
  if (r.method === "HEAD") return sendStream(r.res, status, headers, undefined);
  await sendStream(r.res, status, headers, await ctx.blobs.get(route.digest, range));
}

/**
 * DELETE `/v2/<name>/blobs/<digest>`: unlinks the blob from the repo and records
 * `dev.lading.registry.blob.deleted.v1` in the same transaction. The content stays in the
 * store while other repos link it.
 */
export async function deleteBlob(ctx: OciContext, r: OciRequest, route: BlobRoute) {
  const { caller, target } = await ctx.auth.authorize(r.req.headers.authorization, route.name, [
    "delete",
  ]);
  const repo = target.repo;
  if (!repo) throw ociError(404, "NAME_UNKNOWN", `repository ${route.name} is not known`);
  const client = clientOf(caller, r);
  await runInTransaction(ctx.db, async (db) => {
    const gone = await db
      .deleteFrom("repo_blobs")
      .where("repo_uid", "=", repo.uid)
      .where("digest", "=", route.digest)
      .executeTakeFirst();
    if (Number(gone.numDeletedRows) === 0) {
      throw ociError(404, "BLOB_UNKNOWN", `blob ${route.digest} is not known`);
    }
    await recordBlobDeleted(db, ctx.registryUrl, {
      repo,
      repository: route.name,
      digest: route.digest,
      client,
    });
  });
  await sendStream(r.res, 202, { "content-length": 0 }, undefined);
}
