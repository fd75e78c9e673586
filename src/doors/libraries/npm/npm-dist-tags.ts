import semver from "semver";
import { LibraryError, versionUid } from "../../../libraries/index.ts";
import { now } from "../../../rpc/index.ts";
import { runInTransaction } from "../../../store/metadata/index.ts";
import type { LibraryContext, LibraryRequest } from "../library-context.ts";
import { readSmallJson, sendNpmJson } from "./npm-json.ts";
import { readArtifact } from "./npm-packument-route.ts";

const tagPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A dist-tag name, or why it is not one: npm refuses tags that read as version ranges. */
export function parseDistTag(text: string): { value?: string; error?: string } {
  if (!tagPattern.test(text)) {
    return { error: `dist-tag "${text}" must be 1-64 letters, digits, ".", "_" or "-"` };
  }
  if (semver.validRange(text) !== null) {
    return { error: `dist-tag "${text}" reads as a version range` };
  }
  return { value: text };
}

/**
 * `npm dist-tag ls|add|rm`: `GET /-/package/<name>/dist-tags`, `PUT …/dist-tags/<tag>` with
 * the version as a JSON string, `DELETE …/dist-tags/<tag>`. A tag points at a published
 * version; `latest` can be moved but not removed. Each change moves the artifact's
 * `update_time`, so every replica's packument cache sees it.
 */
export async function serveDistTags(
  ctx: LibraryContext,
  r: LibraryRequest,
  name: string,
  tagText: string | undefined,
): Promise<void> {
  if (tagText === undefined) {
    if (r.method !== "GET" && r.method !== "HEAD") throw methodNotAllowed(r.method);
    const caller = await ctx.authorize(r, "read");
    const artifact = await readArtifact(ctx, caller.orgUid, name);
    sendNpmJson(r, 200, JSON.parse(artifact.dist_tags));
    return;
  }
  if (r.method !== "PUT" && r.method !== "DELETE") throw methodNotAllowed(r.method);
  const caller = await ctx.authorize(r, "publish");
  const tag = parseDistTag(tagText);
  if (tag.value === undefined) throw new LibraryError(400, tag.error ?? "bad dist-tag");
  const version = r.method === "PUT" ? await readSmallJson(r, 1024) : undefined;
  if (r.method === "PUT" && typeof version !== "string") {
    throw new LibraryError(400, "the body must be the version as a JSON string");
  }
  if (r.method === "DELETE" && tag.value === "latest") {
    throw new LibraryError(400, "the latest tag cannot be removed");
  }
  const artifact = await readArtifact(ctx, caller.orgUid, name);
  const tags = await runInTransaction(ctx.db, async (trx) => {
    // Writing the row first locks it (PostgreSQL) until commit, so two tag changes at once
    // cannot both read the old tags and lose one of the writes.
    const time = now();
    await trx
      .updateTable("library_artifacts")
      .set({ update_time: time })
      .where("uid", "=", artifact.uid)
      .execute();
    const row = await trx
      .selectFrom("library_artifacts")
      .select("dist_tags")
      .where("uid", "=", artifact.uid)
      .executeTakeFirstOrThrow();
    const current = JSON.parse(row.dist_tags) as Record<string, string>;
    if (typeof version === "string") {
      const exists = await trx
        .selectFrom("library_versions")
        .select("uid")
        .where("uid", "=", versionUid(artifact.uid, version))
        .executeTakeFirst();
      if (!exists) throw new LibraryError(404, `${name}@${version} is not published`);
      current[tag.value as string] = version;
    } else {
      if (!((tag.value as string) in current)) {
        throw new LibraryError(404, `${name} has no dist-tag ${tag.value}`);
      }
      delete current[tag.value as string];
    }
    await trx
      .updateTable("library_artifacts")
      .set({ dist_tags: JSON.stringify(current), update_time: time })
      .where("uid", "=", artifact.uid)
      .execute();
    return current;
  });
  sendNpmJson(r, r.method === "PUT" ? 201 : 200, { ok: true, "dist-tags": tags });
}

export function methodNotAllowed(method: string): LibraryError {
  return new LibraryError(405, `${method} is not supported here`);
}
