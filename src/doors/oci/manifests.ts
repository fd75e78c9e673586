import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import {
  type EventActor,
  type EventRepo,
  recordManifestDeleted,
  recordPush,
  recordRepoCreated,
  recordTagChange,
} from "../../events/index.ts";
import {
  claimContent,
  dropManifestRefs,
  type ManifestRef,
  recordManifestRefs,
  releaseClaim,
  reviveReferences,
  touchBlob,
} from "../../lifecycle/index.ts";
import { moveTag, recordTagDeletion } from "../../registry/index.ts";
import { ensureRepo } from "../../registry/registry-access.ts";
import { markAuthenticatedUpload, now } from "../../rpc/index.ts";
import { runInTransaction, type TagsTable } from "../../store/metadata/index.ts";
import { clientOf, pullClientOf } from "./event-client.ts";
import { requireFreeTier } from "./free-tier.ts";
import { parsePushedManifest } from "./manifest-json.ts";
import {
  type ManifestPushed,
  num,
  type OciContext,
  type OciRequest,
  readLimited,
  sendStream,
} from "./oci-context.ts";
import { ociError } from "./oci-error.ts";
import { checkTag, type ReferenceKind } from "./oci-paths.ts";
import { touchPullTime } from "./pull-times.ts";
import { expiryOf, refuseImmutable } from "./tag-rules.ts";
import { requireTerms } from "./terms.ts";

/** Largest manifest accepted (Distribution and zot use 4 MiB; oci.md §1.2). */
export const maxManifestBytes = 4 * 1024 * 1024;

/** Most `tag` parameters of one PUT by digest (distribution-spec main asks for at least 10). */
export const maxTagsPerPut = 46;

type ManifestRoute = { name: string; reference: string; referenceKind: ReferenceKind };

const noRepo = (name: string) =>
  ociError(404, "NAME_UNKNOWN", `repository ${name} is not known`, { name });
const unknownManifest = (reference: string) =>
  ociError(404, "MANIFEST_UNKNOWN", `manifest ${reference.slice(0, 256)} is not known`, {
    reference: reference.slice(0, 256),
  });

/** GET and HEAD `/v2/<name>/manifests/<tag or digest>`: the exact bytes pushed. */
export async function getManifest(ctx: OciContext, r: OciRequest, route: ManifestRoute) {
  const byDigest = route.referenceKind === "digest";
  // A reference no tag can have names no manifest: 404, without a lookup.
  const lookup =
    route.referenceKind === "invalid" ? undefined : { reference: route.reference, byDigest };
  // The manifest is read in the statement that authorises (one round trip on PostgreSQL), and
  // used only once every check below has passed, in the order they always ran.
  const {
    caller,
    target,
    manifest: row,
  } = await ctx.auth.authorize(r.req.headers.authorization, route.name, ["pull"], lookup);
  const repo = target.repo;
  if (!repo) throw noRepo(route.name);
  if (!lookup) throw unknownManifest(route.reference);
  await requireTerms(ctx, repo.parent_uid);
  if (!row) throw unknownManifest(route.reference);
  const digest = row.digest;
  await requireFreeTier(ctx, caller, { ...target, repo }, (reach) =>
    byDigest ? reach.manifests.has(digest) : reach.tags.has(route.reference),
  );
  if (!byDigest && r.method === "GET") touchPullTime(ctx.db, repo.uid, route.reference, ctx.log);
  ctx.pulls?.record({
    repo,
    repository: route.name,
    tag: byDigest ? "" : route.reference,
    digest,
    mediaType: row.media_type,
    method: r.method === "HEAD" ? "HEAD" : "GET",
    client: pullClientOf(caller, r, target),
  });
  const headers = {
    "content-type": row.media_type,
    "content-length": num(row.size),
    "docker-content-digest": digest,
    etag: `"${digest}"`,
  };
  const body =
    r.method === "HEAD" ? undefined : await ctx.manifests.read(digest, () => ctx.blobs.get(digest));
  await sendStream(r.res, 200, headers, body);
}

/**
 * PUT `/v2/<name>/manifests/<tag or digest>[?tag=…]`: keeps the exact bytes and media type, checks that
 * every referenced blob and child manifest is in the repo (not `subject`), creates the repo on
 * a first push, and moves the tag (or, on a PUT by digest, each `tag` parameter, echoed in
 * `OCI-Tag`) through {@link moveTag}, which writes history in the same transaction.
 */
export async function putManifest(ctx: OciContext, r: OciRequest, route: ManifestRoute) {
  const { caller, target } = await ctx.auth.authorize(r.req.headers.authorization, route.name, [
    "push",
  ]);
  markAuthenticatedUpload(r.req);
  if (route.referenceKind === "invalid") {
    r.req.resume();
    checkTag(route.reference);
  }
  const bytes = await readLimited(r.req, maxManifestBytes);
  const manifest = parsePushedManifest(bytes, r.req.headers["content-type"]);
  const byDigest = route.referenceKind === "digest";
  const algorithm = byDigest && route.reference.startsWith("sha512:") ? "sha512" : "sha256";
  const digest = `${algorithm}:${createHash(algorithm).update(bytes).digest("hex")}`;
  if (byDigest && digest !== route.reference) {
    throw ociError(400, "DIGEST_INVALID", `the manifest's digest is ${digest}`, {
      expected: route.reference,
      actual: digest,
    });
  }
  const extraTags = byDigest ? [...new Set(r.query.getAll("tag"))] : [];
  if (extraTags.length > maxTagsPerPut) {
    throw ociError(414, "UNSUPPORTED", `at most ${maxTagsPerPut} tag parameters are accepted`);
  }
  for (const tag of extraTags) checkTag(tag);
  const expiry = expiryOf(manifest.annotations);
  const blobDigests = manifest.blobs.filter((d) => !d.urls?.length).map((d) => d.digest);
  const children = manifest.manifests.map((d) => d.digest);
  const missing = [
    ...(await absent(ctx, "repo_blobs", target.repo?.uid, blobDigests)),
    ...(await absent(ctx, "manifests", target.repo?.uid, children)),
  ];
  if (missing.length > 0) {
    throw ociError(
      400,
      "MANIFEST_BLOB_UNKNOWN",
      `unknown blobs or manifests: ${missing.join(", ")}`,
      {
        digests: [...new Set(missing)],
      },
    );
  }
  if (target.repo) await ctx.quota?.check(target.repo, [{ digest, size: bytes.length }]);
  const refs: ManifestRef[] = [
    ...blobDigests.map((d) => ({ digest: d, kind: "blob" as const })),
    ...children.map((d) => ({ digest: d, kind: "manifest" as const })),
  ];
  const claim = await claimContent(ctx.db, digest);
  let repo: Awaited<ReturnType<typeof ensureRepo>>;
  try {
    await ctx.blobs.put(Readable.from([bytes]), { expectedDigest: digest });
    const client = clientOf(caller, r);
    // The manifest, its tags and their events commit together (docs/events.md).
    repo = await runInTransaction(ctx.db, async (db) => {
      const repo = await ensureRepo(db, target, (made) =>
        recordRepoCreated(db, ctx.registryUrl, made, client.actor),
      );
      // A collection may have deleted what the check above found: fail rather than store a
      // manifest whose blobs are gone; the client pushes them again.
      const gone = await reviveReferences(db, repo.uid, blobDigests, children);
      if (gone.length > 0) {
        throw ociError(
          400,
          "MANIFEST_BLOB_UNKNOWN",
          `unknown blobs or manifests: ${gone.join(", ")}`,
          {
            digests: gone,
          },
        );
      }
      await touchBlob(db, digest, bytes.length, claim);
      const time = now();
      await db
        .insertInto("manifests")
        .values({
          repo_uid: repo.uid,
          digest,
          media_type: manifest.mediaType,
          artifact_type: manifest.artifactType,
          subject_digest: manifest.subject?.digest ?? null,
          size: bytes.length,
          create_time: time,
          last_time: time,
          refs_recorded: 0,
        })
        .onConflict((oc) => oc.columns(["repo_uid", "digest"]).doUpdateSet({ last_time: time }))
        .execute();
      await recordManifestRefs(db, repo.uid, digest, refs);
      const push = { repo, repository: route.name, digest, mediaType: manifest.mediaType, client };
      const tags = byDigest ? extraTags : [route.reference];
      if (tags.length === 0)
        await recordPush(db, ctx.registryUrl, { ...push, tag: "", tagPreviousDigest: "" });
      for (const tag of tags) {
        const before = await db
          .selectFrom("tags")
          .select("digest")
          .where("parent_uid", "=", repo.uid)
          .where("name", "=", tag)
          .executeTakeFirst();
        if (before && before.digest !== digest) {
          await refuseImmutable(db, repo.uid, [tag], "moved");
        }
        let moved = await moveTag(db, repo.uid, tag, digest);
        if (expiry && before?.digest !== digest) {
          moved = await db
            .updateTable("tags")
            .set({ expire_time: expiry })
            .where("uid", "=", moved.uid)
            .returningAll()
            .executeTakeFirstOrThrow();
        }
        const tagPreviousDigest = before?.digest ?? "";
        await recordPush(db, ctx.registryUrl, { ...push, tag, tagPreviousDigest });
        // Pushing the digest a tag already names moves nothing: no tag event.
        if (tagPreviousDigest === digest) continue;
        const verb = before ? "updated" : "created";
        await recordTagChange(db, ctx.registryUrl, { verb, repo, tag: moved, actor: client.actor });
      }
      return repo;
    });
  } finally {
    await releaseClaim(ctx.db, claim);
  }
  if (extraTags.length > 0) r.res.setHeader("oci-tag", extraTags);
  notifyPushed(ctx, {
    repoUid: repo.uid,
    digest,
    mediaType: manifest.mediaType,
    artifactType: manifest.artifactType,
    configMediaType: manifest.isIndex ? "" : (manifest.blobs[0]?.mediaType ?? ""),
    layerMediaTypes: manifest.isIndex ? [] : manifest.blobs.slice(1).map((d) => d.mediaType),
    subjectDigest: manifest.subject?.digest ?? null,
    childDigests: manifest.manifests.map((d) => d.digest),
    tags: byDigest ? extraTags : [route.reference],
  });
  const headers: Record<string, string | number> = {
    location: `/v2/${route.name}/manifests/${digest}`,
    "docker-content-digest": digest,
    "content-length": 0,
  };
  if (manifest.subject) headers["oci-subject"] = manifest.subject.digest;
  await sendStream(r.res, 201, headers, undefined);
}

/** Tells the listener, if any, of a committed push; a listener that throws is only logged. */
function notifyPushed(ctx: OciContext, pushed: ManifestPushed): void {
  if (!ctx.onManifestPushed) return;
  try {
    ctx.onManifestPushed(pushed);
  } catch (err) {
    ctx.log.warn({ err, digest: pushed.digest }, "the manifest push listener failed");
  }
}

/**
 * DELETE `/v2/<name>/manifests/<reference>`: a tag removes only the tag (its history stays); a
 * digest removes the manifest and every tag pointing at it.
 */
export async function deleteManifest(ctx: OciContext, r: OciRequest, route: ManifestRoute) {
  const { caller, target } = await ctx.auth.authorize(r.req.headers.authorization, route.name, [
    "delete",
  ]);
  const repo = target.repo;
  if (!repo) throw noRepo(route.name);
  if (route.referenceKind === "invalid") throw unknownManifest(route.reference);
  const actor = clientOf(caller, r).actor;
  const event = { repo, repository: route.name, actor };
  await runInTransaction(ctx.db, async (db) => {
    if (route.referenceKind === "tag") {
      const gone = await db
        .deleteFrom("tags")
        .where("parent_uid", "=", repo.uid)
        .where("name", "=", route.reference)
        .returningAll()
        .execute();
      if (gone.length === 0) throw unknownManifest(route.reference);
      await refuseImmutable(db, repo.uid, [route.reference], "deleted");
      await tagsDeleted(db, ctx.registryUrl, repo, gone, actor);
      return;
    }
    const gone = await db
      .deleteFrom("manifests")
      .where("repo_uid", "=", repo.uid)
      .where("digest", "=", route.reference)
      .executeTakeFirst();
    if (Number(gone.numDeletedRows) === 0) throw unknownManifest(route.reference);
    await dropManifestRefs(db, repo.uid, [route.reference]);
    const tags = await db
      .deleteFrom("tags")
      .where("parent_uid", "=", repo.uid)
      .where("digest", "=", route.reference)
      .returningAll()
      .execute();
    await refuseImmutable(
      db,
      repo.uid,
      tags.map((t) => t.name),
      "deleted with its manifest",
    );
    await recordManifestDeleted(db, ctx.registryUrl, { ...event, digest: route.reference });
    await tagsDeleted(db, ctx.registryUrl, repo, tags, actor);
  });
  await sendStream(r.res, 202, { "content-length": 0 }, undefined);
}

/** The digests of `digests` that repo `repoUid` does not hold in `table` (all, without a repo). */
async function absent(
  ctx: OciContext,
  table: "repo_blobs" | "manifests",
  repoUid: string | undefined,
  digests: string[],
): Promise<string[]> {
  if (!repoUid || digests.length === 0) return digests;
  const found = await ctx.db
    .selectFrom(table)
    .select("digest")
    .where("repo_uid", "=", repoUid)
    .where("digest", "in", digests)
    .execute();
  const have = new Set(found.map((f) => f.digest));
  return digests.filter((d) => !have.has(d));
}

async function tagsDeleted(
  db: OciContext["db"],
  registryUrl: string,
  repo: EventRepo,
  tags: TagsTable[],
  actor: EventActor,
) {
  for (const tag of tags) {
    await recordTagDeletion(db, tag);
    await recordTagChange(db, registryUrl, { verb: "deleted", repo, tag, actor });
  }
}
