import type { Kysely } from "kysely";
import type { MetadataSchema } from "./schema.ts";

type Db = Kysely<MetadataSchema>;

/**
 * Takes (or renews) lease `name` for `holder` until `ttlMs` from now, if it is free, expired
 * or already `holder`'s; returns whether `holder` holds it. One statement, so replicas sharing
 * a database race safely: the row's conflict decides.
 */
export async function acquireLease(
  db: Db,
  name: string,
  holder: string,
  ttlMs: number,
): Promise<boolean> {
  const time = new Date().toISOString();
  const expire = new Date(Date.now() + ttlMs).toISOString();
  const row = await db
    .insertInto("leases")
    .values({ name, holder, expire_time: expire })
    .onConflict((oc) =>
      oc
        .column("name")
        .doUpdateSet({ holder, expire_time: expire })
        .where((eb) =>
          eb.or([eb("leases.expire_time", "<", time), eb("leases.holder", "=", holder)]),
        ),
    )
    .returning("holder")
    .executeTakeFirst();
  return row?.holder === holder;
}

/** Gives lease `name` back if `holder` still holds it. */
export async function releaseLease(db: Db, name: string, holder: string): Promise<void> {
  await db.deleteFrom("leases").where("name", "=", name).where("holder", "=", holder).execute();
}
