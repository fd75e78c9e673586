import { randomUUID } from "node:crypto";
import { now } from "../../rpc/index.ts";
import type { UploadState } from "../../store/blobs/index.ts";
import type { OciContext } from "./oci-context.ts";

/**
 * How long a chunk's claim on its upload lasts unless renewed. The writing replica renews it a
 * third of the way through, so only a replica that died mid-chunk lets one lapse: the upload
 * then accepts the next chunk at its recorded size at most this long after the death.
 */
export const uploadClaimMs = 30_000;

/** A request's exclusive right to append to an upload at `size`, across every replica. */
export interface UploadClaim {
  /** Records the appended state, keeping the claim (false: the claim was lost). */
  record(next: UploadState): Promise<boolean>;
  /** Records the appended state and lets the claim go (false: the claim was lost). */
  finish(next: UploadState): Promise<boolean>;
  /** Lets the claim go without recording anything (a failed append, a finished commit). */
  release(): Promise<void>;
}

const lapse = () => new Date(Date.now() + uploadClaimMs).toISOString();

/**
 * Claims upload `id` for one chunk, if it is still at `size` and no live claim holds it: one
 * conditional UPDATE, so of two chunks sent to two replicas at once exactly one gets it (the
 * other is answered 416). Returns undefined when the claim is refused.
 */
export async function claimUpload(
  ctx: OciContext,
  id: string,
  size: number,
): Promise<UploadClaim | undefined> {
  const writer = randomUUID();
  const taken = await ctx.db
    .updateTable("uploads")
    .set({ writer, writer_until: lapse() })
    .where("id", "=", id)
    .where("size", "=", size)
    .where((eb) => eb.or([eb("writer", "=", ""), eb("writer_until", "<", now())]))
    .executeTakeFirst();
  if (Number(taken.numUpdatedRows) !== 1) return undefined;
  const renew = setInterval(() => {
    ctx.db
      .updateTable("uploads")
      .set({ writer_until: lapse() })
      .where("id", "=", id)
      .where("writer", "=", writer)
      .execute()
      .catch(() => undefined);
  }, uploadClaimMs / 3);
  renew.unref();
  const write = async (next: UploadState, keep: boolean) => {
    if (!keep) clearInterval(renew);
    const done = await ctx.db
      .updateTable("uploads")
      .set({
        size: next.size,
        state: JSON.stringify(next),
        update_time: now(),
        ...(keep ? {} : { writer: "", writer_until: null }),
      })
      .where("id", "=", id)
      .where("writer", "=", writer)
      .executeTakeFirst();
    return Number(done.numUpdatedRows) === 1;
  };
  return {
    record: (next) => write(next, true),
    finish: (next) => write(next, false),
    async release() {
      clearInterval(renew);
      await ctx.db
        .updateTable("uploads")
        .set({ writer: "", writer_until: null })
        .where("id", "=", id)
        .where("writer", "=", writer)
        .execute();
    },
  };
}
