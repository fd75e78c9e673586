import type { Kysely } from "kysely";
import type { PlatformGauges } from "../server/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";

/**
 * The process metrics' gauges, read from the metadata store: each one query (the queue's two
 * states are a range of the `(state, update_time)` index each).
 */
export function platformGauges(db: Kysely<MetadataSchema>): PlatformGauges {
  const count = (n: string | number | bigint | null | undefined) => Number(n ?? 0);
  const queued = async (state: "pending" | "scanning") => {
    const row = await db
      .selectFrom("image_scans")
      .select((eb) => eb.fn.countAll<string | number>().as("n"))
      .where("state", "=", state)
      .executeTakeFirstOrThrow();
    return count(row.n);
  };
  return {
    async uploadSessions() {
      const row = await db
        .selectFrom("uploads")
        .select((eb) => eb.fn.countAll<string | number>().as("n"))
        .executeTakeFirstOrThrow();
      return count(row.n);
    },
    async scanQueue() {
      return { pending: await queued("pending"), scanning: await queued("scanning") };
    },
    async storageBytes() {
      const sum = async (table: "blobs" | "manifests" | "library_files") => {
        const row = await db
          .selectFrom(table)
          .select((eb) => eb.fn.sum<string | number | null>("size").as("n"))
          .executeTakeFirstOrThrow();
        return count(row.n);
      };
      return {
        blobs: await sum("blobs"),
        manifests: await sum("manifests"),
        libraries: await sum("library_files"),
      };
    },
  };
}
