import { create } from "@bufbuild/protobuf";
import type { Kysely } from "kysely";
import { failedPrecondition } from "../errors/index.ts";
import {
  type GarbageCollection,
  GarbageCollectionSchema,
  GarbageCollectionService,
} from "../gen/lading/lifecycle/v2/garbage_collection_pb.js";
import type { ListEngine } from "../lists/index.ts";
import { type BoundService, bindService, defineResource } from "../rpc/index.ts";
import type { GcRunsTable, MetadataSchema } from "../store/metadata/index.ts";
import { CollectionBusyError } from "./collector.ts";
import { type GcReport, reportFromRow } from "./gc-report.ts";
import type { GcScheduler } from "./gc-scheduler.ts";
import { operatorCheck } from "./operators.ts";
import { lifecycleDomain } from "./storage-service.ts";

/** What the garbage collection service needs. */
export interface GarbageCollectionsContext {
  db: Kysely<MetadataSchema>;
  lists: ListEngine;
  /** Identity uids of the installation's operators (the server's setting). */
  operators: readonly string[];
  /** This replica's collector; known once the server is wired, before any request. */
  gc: () => GcScheduler;
}

/** A report as the API message. */
export function garbageCollectionOf(r: GcReport): GarbageCollection {
  return create(GarbageCollectionSchema, {
    uid: r.uid,
    trigger: r.trigger,
    dryRun: r.dryRun,
    state: r.state,
    startTime: r.startTime,
    endTime: r.endTime,
    manifestsDeleted: BigInt(r.manifestsDeleted),
    linksDeleted: BigInt(r.linksDeleted),
    blobsDeleted: BigInt(r.blobsDeleted),
    bytesReclaimed: BigInt(r.bytesReclaimed),
    uploadsExpired: BigInt(r.uploadsExpired),
    filesSwept: BigInt(r.filesSwept),
    durationMs: BigInt(r.durationMs),
    error: r.error,
  });
}

/**
 * The GarbageCollectionService: the operators' API call to run a collection and the listing
 * of runs (issue 23). Runs are the installation's, in no group, so the resource admits the
 * operators to every row instead of reading grants.
 */
export function createGarbageCollectionsService(ctx: GarbageCollectionsContext): BoundService {
  const admit = operatorCheck(ctx.operators);
  const resource = defineResource({
    table: "gc_runs",
    domain: lifecycleDomain,
    type: "garbage collection",
    see: "",
    admit,
    sortFields: { uid: { column: "uid" }, start_time: { column: "start_time" } },
    defaultOrder: "start_time desc",
    toMessage: (row: GcRunsTable) => garbageCollectionOf(reportFromRow(row)),
  });
  return bindService(GarbageCollectionService, {
    async runGarbageCollection(req, call) {
      admit(call);
      try {
        return garbageCollectionOf(await ctx.gc().start("api", req.dryRun));
      } catch (error) {
        if (!(error instanceof CollectionBusyError)) throw error;
        throw await busyError(ctx.db);
      }
    },

    async listGarbageCollections(req, call) {
      const page = await resource.list(ctx, call, req, {
        state: req.state,
        trigger: req.trigger,
      });
      return { ...page, garbageCollections: page.items };
    },

    async getGarbageCollection(req, call) {
      return resource.get(ctx, call, req.uid);
    },
  });
}

/**
 * FAILED_PRECONDITION naming the collection that holds the lease, when its row says so (the
 * holder may be another replica, whose run this one only sees in gc_runs).
 */
async function busyError(db: Kysely<MetadataSchema>) {
  const running = await db
    .selectFrom("gc_runs")
    .select("uid")
    .where("state", "=", "running")
    .orderBy("start_time", "desc")
    .limit(1)
    .executeTakeFirst();
  const description = running
    ? `garbage collection ${running.uid} is running; one runs at a time`
    : "another garbage collection is running; one runs at a time";
  return failedPrecondition(lifecycleDomain, description, [
    { type: "GC_RUNNING", subject: running?.uid ?? "", description },
  ]);
}
