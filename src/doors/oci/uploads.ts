import { randomUUID } from "node:crypto";
import { recordRepoCreated } from "../../events/index.ts";
import { claimContent, releaseClaim } from "../../lifecycle/index.ts";
import { ensureRepo, resolveRepoPath } from "../../registry/registry-access.ts";
import { markAuthenticatedUpload, now } from "../../rpc/index.ts";
import { DigestMismatchError, type UploadState } from "../../store/blobs/index.ts";
import { runInTransaction } from "../../store/metadata/index.ts";
import { linkBlob, mountBlob } from "./blobs.ts";
import { clientOf } from "./event-client.ts";
import { freeTierReach } from "./free-tier.ts";
import { num, type OciContext, type OciRequest, sendStream } from "./oci-context.ts";
import { OciError, ociError } from "./oci-error.ts";
import { checkDigest } from "./oci-paths.ts";
import { claimUpload, type UploadClaim } from "./upload-claim.ts";
import { parseUploadStart } from "./upload-params.ts";

type UploadsRoute = { name: string };
type UploadRoute = { name: string; id: string };

const locks = new Map<string, Promise<unknown>>();

/** Runs `work` after every earlier call for the same upload id has finished. */
async function serialised<T>(id: string, work: () => Promise<T>): Promise<T> {
  const previous = locks.get(id) ?? Promise.resolve();
  const run = previous.then(work, work);
  const tail = run.catch(() => undefined);
  locks.set(id, tail);
  try {
    return await run;
  } finally {
    if (locks.get(id) === tail) locks.delete(id);
  }
}

const unknownUpload = () => ociError(404, "BLOB_UPLOAD_UNKNOWN", "upload session unknown");
const rangeHeader = (size: number) => `0-${Math.max(0, size - 1)}`;
const hasBody = (r: OciRequest) => {
  const length = r.req.headers["content-length"];
  if (length !== undefined) return length !== "0";
  return r.req.headers["transfer-encoding"] !== undefined || r.req.httpVersionMajor === 2;
};

function sessionHeaders(name: string, id: string, size: number): Record<string, string> {
  return {
    location: `/v2/${name}/blobs/uploads/${id}`,
    range: rangeHeader(size),
    "docker-upload-uuid": id,
    "content-length": "0",
  };
}

/** Answers 201 for `digest`, linked to the repo. */
async function committed(r: OciRequest, name: string, digest: string) {
  await sendStream(
    r.res,
    201,
    {
      location: `/v2/${name}/blobs/${digest}`,
      "docker-content-digest": digest,
      "content-length": 0,
    },
    undefined,
  );
}

/**
 * POST `/v2/<name>/blobs/uploads/`: cross-repo mount (`mount` + `from`, 201; 202 with a normal
 * session when the caller cannot pull `from` or it lacks the blob), single-POST upload
 * (`digest`, 201), or a new session (202).
 */
export async function startUpload(ctx: OciContext, r: OciRequest, route: UploadsRoute) {
  const { caller, target } = await ctx.auth.authorize(r.req.headers.authorization, route.name, [
    "push",
  ]);
  markAuthenticatedUpload(r.req);
  const params = parseUploadStart(r.query);
  if (params.error) {
    r.req.resume();
    throw params.error;
  }
  const { mount, from, digest } = params.value;
  const actor = clientOf(caller, r).actor;
  const repo = await runInTransaction(ctx.db, (db) =>
    ensureRepo(db, target, (made) => recordRepoCreated(db, ctx.registryUrl, made, actor)),
  );
  if (mount !== undefined && from !== undefined) {
    const source = await resolveRepoPath(ctx.db, from);
    const sourceRepo = source.repo;
    // Pull that reaches only the free tier may mount only what the free tier reaches.
    const readable =
      sourceRepo &&
      caller.actions(source).has("pull") &&
      (!caller.freeTierOnly(source) || (await freeTierReach(ctx, sourceRepo.uid)).blobs.has(mount));
    if (readable) {
      const size = await ctx.db
        .selectFrom("repo_blobs")
        .innerJoin("blobs", "blobs.digest", "repo_blobs.digest")
        .select("blobs.size")
        .where("repo_blobs.repo_uid", "=", sourceRepo.uid)
        .where("repo_blobs.digest", "=", mount)
        .executeTakeFirst();
      if (size) await ctx.quota?.check(repo, [{ digest: mount, size: num(size.size) }]);
      if (size && (await mountBlob(ctx, sourceRepo.uid, repo.uid, mount)) !== undefined) {
        r.req.resume();
        return committed(r, route.name, mount);
      }
    }
  }
  if (digest !== undefined) {
    const length = Number(r.req.headers["content-length"] ?? Number.NaN);
    if (Number.isSafeInteger(length)) await ctx.quota?.check(repo, [{ digest, size: length }]);
    const claim = await claimContent(ctx.db, digest);
    try {
      const stored = await ctx.blobs.put(r.req, { expectedDigest: digest });
      await linkBlob(ctx, repo.uid, stored.digest, stored.size, claim);
      return committed(r, route.name, stored.digest);
    } catch (error) {
      throw digestError(error);
    } finally {
      await releaseClaim(ctx.db, claim);
    }
  }
  r.req.resume();
  const state = await ctx.blobs.createUpload();
  const id = randomUUID();
  const time = now();
  await ctx.db
    .insertInto("uploads")
    .values({
      id,
      repo_uid: repo.uid,
      size: state.size,
      state: JSON.stringify(state),
      create_time: time,
      update_time: time,
    })
    .execute();
  await sendStream(r.res, 202, sessionHeaders(route.name, id, state.size), undefined);
}

function digestError(error: unknown): unknown {
  if (error instanceof DigestMismatchError) {
    return ociError(400, "DIGEST_INVALID", error.message, {
      expected: error.expected,
      actual: error.actual,
    });
  }
  return error;
}

async function loadSession(
  ctx: OciContext,
  r: OciRequest,
  route: UploadRoute,
  uploadTtlMs: number,
) {
  const { target } = await ctx.auth.authorize(r.req.headers.authorization, route.name, ["push"]);
  markAuthenticatedUpload(r.req);
  const row = await ctx.db
    .selectFrom("uploads")
    .selectAll()
    .where("id", "=", route.id)
    .executeTakeFirst();
  if (!row || !target.repo || row.repo_uid !== target.repo.uid) throw unknownUpload();
  if (Date.parse(row.update_time) < Date.now() - uploadTtlMs) throw unknownUpload();
  return { repo: target.repo, size: num(row.size), state: JSON.parse(row.state) as UploadState };
}

/**
 * Appends the request body after checking `Content-Range` (416 unless it starts at the end) and
 * claiming the upload (416 while another replica writes a chunk to it). The caller records the
 * new state through the claim, or releases it.
 */
async function appendChunk(
  ctx: OciContext,
  r: OciRequest,
  route: UploadRoute,
  size: number,
  state: UploadState,
): Promise<{ next: UploadState; claim: UploadClaim }> {
  const contentRange = r.req.headers["content-range"];
  if (contentRange !== undefined) {
    const match = /^(?:bytes )?(\d+)-(\d+)$/.exec(contentRange.trim());
    const start = match ? Number(match[1]) : -1;
    const end = match ? Number(match[2]) : -1;
    const length = r.req.headers["content-length"];
    if (
      !match ||
      start !== size ||
      end < start ||
      (length !== undefined && Number(length) !== end - start + 1)
    ) {
      r.req.resume();
      throw new OciError(416, "BLOB_UPLOAD_INVALID", `the chunk must start at byte ${size}`, {
        detail: { contentRange, expectedStart: size },
        headers: sessionHeaders(route.name, route.id, size),
      });
    }
  }
  const claim = await claimOrRefuse(ctx, r, route, size);
  try {
    return { next: await ctx.blobs.appendUpload(state, r.req), claim };
  } catch (error) {
    await claim.release().catch(() => undefined);
    throw error;
  }
}

/** The upload's claim, or 416 while a chunk sent to another replica is being written. */
async function claimOrRefuse(ctx: OciContext, r: OciRequest, route: UploadRoute, size: number) {
  const claim = await claimUpload(ctx, route.id, size);
  if (claim) return claim;
  r.req.resume();
  throw new OciError(416, "BLOB_UPLOAD_INVALID", "another chunk of this upload is being written", {
    detail: { expectedStart: size },
    headers: sessionHeaders(route.name, route.id, size),
  });
}

/** The claim was lost while the chunk was written (the replica stalled past its lapse). */
const claimLost = () =>
  ociError(409, "BLOB_UPLOAD_INVALID", "the upload was taken over while this chunk was written");

/** The upload-session endpoints: PATCH (chunk), PUT (close), GET (status), DELETE (cancel). */
export function createUploadHandlers(uploadTtlMs: number) {
  return {
    async patch(ctx: OciContext, r: OciRequest, route: UploadRoute) {
      const next = await serialised(route.id, async () => {
        const { size, state } = await loadSession(ctx, r, route, uploadTtlMs);
        const chunk = await appendChunk(ctx, r, route, size, state);
        if (!(await chunk.claim.finish(chunk.next))) throw claimLost();
        return chunk.next;
      });
      await sendStream(r.res, 202, sessionHeaders(route.name, route.id, next.size), undefined);
    },

    async put(ctx: OciContext, r: OciRequest, route: UploadRoute) {
      const digest = r.query.get("digest") ?? "";
      checkDigest(digest);
      await serialised(route.id, async () => {
        const session = await loadSession(ctx, r, route, uploadTtlMs);
        let state = session.state;
        let claim: UploadClaim;
        if (hasBody(r)) {
          const chunk = await appendChunk(ctx, r, route, session.size, session.state);
          claim = chunk.claim;
          state = chunk.next;
        } else {
          claim = await claimOrRefuse(ctx, r, route, session.size);
        }
        r.req.resume();
        await ctx.quota?.check(session.repo, [{ digest, size: state.size }]);
        const content = await claimContent(ctx.db, digest);
        try {
          let stored: Awaited<ReturnType<typeof ctx.blobs.commitUpload>>;
          try {
            if (!(await claim.record(state))) throw claimLost();
            stored = await ctx.blobs.commitUpload(state, digest);
          } catch (error) {
            throw digestError(error);
          }
          await ctx.db.deleteFrom("uploads").where("id", "=", route.id).execute();
          await linkBlob(ctx, session.repo.uid, stored.digest, stored.size, content);
        } finally {
          // Stops the upload claim's renewals (a no-op on the deleted row) and the content claim.
          await claim.release().catch(() => undefined);
          await releaseClaim(ctx.db, content);
        }
        await committed(r, route.name, digest);
      });
    },

    async status(ctx: OciContext, r: OciRequest, route: UploadRoute) {
      const { size } = await loadSession(ctx, r, route, uploadTtlMs);
      await sendStream(r.res, 204, sessionHeaders(route.name, route.id, size), undefined);
    },

    async cancel(ctx: OciContext, r: OciRequest, route: UploadRoute) {
      await serialised(route.id, async () => {
        const { state } = await loadSession(ctx, r, route, uploadTtlMs);
        await ctx.db.deleteFrom("uploads").where("id", "=", route.id).execute();
        await ctx.blobs.abortUpload(state).catch(() => undefined);
      });
      await sendStream(r.res, 204, { "content-length": 0 }, undefined);
    },
  };
}
