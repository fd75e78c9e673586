import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import { type EventActor, recordTagChange } from "../events/index.ts";
import {
  acquireLease,
  type MetadataSchema,
  releaseLease,
  runInTransaction,
} from "../store/metadata/index.ts";
import { findRetentionCandidates, type RetentionCandidate } from "./retention.ts";
import { recordTagDeletion } from "./tag-history.ts";
import { immutableHold } from "./tag-policies.ts";

/** What a retention run needs. */
export interface RetentionContext {
  db: Kysely<MetadataSchema>;
  /** Ce-Source of the tag.deleted events. */
  registryUrl: string;
  /** The time the run weighs tags at. Default now. */
  now?: Date;
  /** List what would go and delete nothing. */
  dryRun?: boolean;
  /**
   * How long a deleted repo's manifests, blob links and tag history are kept so it can be
   * restored. Default 30 days, the collector's default history retention window.
   */
  deletedRepoWindowMs?: number;
}

/** Default of {@link RetentionContext.deletedRepoWindowMs}. */
export const defaultDeletedRepoWindowMs = 30 * 86_400_000;

/** Deleted repos purged per run at most. */
const maxPurgedRepos = 100;

/** The actor of the events of tags retention deletes: no identity, Lading itself. */
export const retentionActor: EventActor = { subject: "", act: { sub: "lading:retention" } };

/**
 * One retention run: deletes the tags the retention policies and expiry times let go (at most
 * {@link maxRetentionBatch}), each in its own transaction with an `expire` history record and a
 * `dev.lading.registry.tag.deleted.v1` event. A tag moved since it was weighed, or held by an
 * immutability rule created meanwhile, stays. The garbage collector calls this before it
 * collects, so the manifests of the tags it deletes are collected in the same pass. It also
 * purges the repos deleted longer ago than the deleted-repo window.
 */
export async function retentionStep(ctx: RetentionContext): Promise<RetentionCandidate[]> {
  const at = ctx.now ?? new Date();
  const candidates = await findRetentionCandidates(ctx.db, undefined, at);
  if (ctx.dryRun) return candidates;
  await purgeDeletedRepos(
    ctx.db,
    at.getTime() - (ctx.deletedRepoWindowMs ?? defaultDeletedRepoWindowMs),
  );
  const deleted: RetentionCandidate[] = [];
  for (const c of candidates) {
    const gone = await runInTransaction(ctx.db, async (db) => {
      if (await immutableHold(db, c.repoUid, [c.name])) return false;
      const tag = await db
        .deleteFrom("tags")
        .where("uid", "=", c.uid)
        .where("digest", "=", c.digest)
        .where("update_time", "=", c.updateTime)
        .returningAll()
        .executeTakeFirst();
      if (!tag) return false;
      const repo = await db
        .selectFrom("repos")
        .select(["uid", "parent_uid", "root_uid"])
        .where("uid", "=", c.repoUid)
        .executeTakeFirstOrThrow();
      await recordTagDeletion(db, tag, "expire");
      await recordTagChange(db, ctx.registryUrl, {
        verb: "deleted",
        repo,
        tag,
        actor: retentionActor,
      });
      return true;
    });
    if (gone) deleted.push(c);
  }
  return deleted;
}

/**
 * Forgets the repos deleted before `before`: their manifests, blob links and tag history go,
 * so the collector may free their blobs, and they can no longer be restored.
 */
async function purgeDeletedRepos(db: Kysely<MetadataSchema>, before: number): Promise<void> {
  const old = await db
    .selectFrom("deleted_repos")
    .select("uid")
    .where("delete_time", "<", new Date(before).toISOString())
    .orderBy("delete_time")
    .limit(maxPurgedRepos)
    .execute();
  for (const { uid } of old) {
    await runInTransaction(db, async (trx) => {
      await trx.deleteFrom("manifests").where("repo_uid", "=", uid).execute();
      await trx.deleteFrom("repo_blobs").where("repo_uid", "=", uid).execute();
      await trx.deleteFrom("manifest_refs").where("repo_uid", "=", uid).execute();
      await trx.deleteFrom("tag_history").where("repo_uid", "=", uid).execute();
      // The bytes are the collector's: with no link or manifest left, its next run frees them.
      await trx.deleteFrom("deleted_repos").where("uid", "=", uid).execute();
    });
  }
}

/** Options of {@link startRetention}. */
export interface RetentionSchedule extends RetentionContext {
  /** Time between runs, and before the first. Default one hour; 0 starts nothing. */
  intervalMs?: number;
  log: { info(o: object, m: string): void; warn(o: object, m: string): void };
}

/** The lease replicas compete for, so one runs retention at a time. */
export const retentionLeaseName = "tag-retention";

/**
 * Runs {@link retentionStep} on a timer while this replica holds the retention lease, a row
 * in the shared leases table every replica tries to take, and that lapses after ten
 * minutes, so a replica that dies mid-run holds it no longer than that.
 */
export function startRetention(options: RetentionSchedule): { close(): Promise<void> } {
  const intervalMs = options.intervalMs ?? 3_600_000;
  if (intervalMs === 0) return { close: async () => {} };
  const holder = randomBytes(8).toString("hex");
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= (async () => {
      if (!(await acquireLease(options.db, retentionLeaseName, holder, 600_000))) return;
      try {
        const deleted = await retentionStep({ ...options, now: undefined });
        if (deleted.length > 0) {
          options.log.info({ deleted: deleted.length }, "retention deleted expired tags");
        }
      } finally {
        await releaseLease(options.db, retentionLeaseName, holder);
      }
    })()
      .catch((err: unknown) => options.log.warn({ err }, "retention failed; retried later"))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return {
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}
