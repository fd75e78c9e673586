import type { Kysely } from "kysely";
import { type MetadataSchema, precompiled } from "../store/metadata/index.ts";
import { parentOf } from "../uidp/index.ts";
import { newEventId } from "./event-id.ts";
import type { NewEvent } from "./new-event.ts";

const columns = [
  "id",
  "type",
  "source",
  "subject",
  "group_uid",
  "time",
  "body_type",
  "extensions",
  "data",
] as const;
type EventRow = Record<(typeof columns)[number], string>;

/**
 * Inserts of `size` events, compiled once per size: compiling a large insert costs more CPU than
 * SQLite needs to run it. Batches are cut into power-of-two sizes, so a handful of statement
 * shapes serve every batch (and the SQLite statement cache keeps them all). On PostgreSQL each
 * shape is a named statement, planned once per connection: planning a 128-row insert cost
 * PostgreSQL about a quarter of what it spent on a manifest GET's pull event.
 */
const insertsBySize = new Map<number, ReturnType<typeof insertOf>>();
function insertOf(size: number) {
  return precompiled(
    (db, ...values: string[]) =>
      db
        .insertInto("events")
        .values(
          Array.from({ length: size }, (_, row) => {
            const entry = {} as EventRow;
            columns.forEach((column, i) => {
              entry[column] = values[row * columns.length + i];
            });
            return entry;
          }),
        )
        .returning(["id", "seq"]),
    { named: true },
  );
}
const largestInsert = 128;

/**
 * recordEvent for many events: one cached insert per event, then one read of the subscriptions
 * of all their groups and ancestors and one insert of the deliveries, instead of a read per
 * event. Same rule as recordEvent (a subscription on the group or an ancestor whose type
 * prefix matches); for batches such as pull events. Call it in the transaction of the change.
 */
export async function recordEvents(db: Kysely<MetadataSchema>, events: NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  const now = new Date().toISOString();
  const rows = events.map((event) => ({
    id: newEventId(),
    type: event.type,
    source: event.source,
    subject: event.subject,
    group_uid: event.groupUid,
    time: event.time ?? now,
    body_type: event.bodyType ?? "",
    extensions: JSON.stringify(event.extensions ?? {}),
    data: JSON.stringify({ actor: event.actor, body: event.body }),
  }));
  // RETURNING promises no row order; the ids pair rows with their seq.
  const seqOf = new Map<string, string | number | bigint>();
  for (let done = 0; done < rows.length; ) {
    let size = largestInsert;
    while (size > rows.length - done) size /= 2;
    let insert = insertsBySize.get(size);
    if (!insert) {
      insert = insertOf(size);
      insertsBySize.set(size, insert);
    }
    const values = rows.slice(done, done + size).flatMap((r) => columns.map((c) => r[c]));
    for (const r of await insert(db, ...values)) seqOf.set(r.id, r.seq);
    done += size;
  }
  const chains = new Map<string, string[]>();
  for (const event of events) {
    if (chains.has(event.groupUid)) continue;
    const chain: string[] = [];
    for (let g = event.groupUid; g !== ""; g = parentOf(g)) chain.push(g);
    chains.set(event.groupUid, chain);
  }
  const groups = [...new Set([...chains.values()].flat())];
  if (groups.length === 0) return;
  const subscriptions = await db
    .selectFrom("subscriptions")
    .select(["uid", "parent_uid", "type_prefix"])
    .where("parent_uid", "in", groups)
    .execute();
  if (subscriptions.length === 0) return;
  const deliveries = rows.flatMap((row) => {
    const chain = new Set(chains.get(row.group_uid));
    return subscriptions
      .filter((s) => chain.has(s.parent_uid) && row.type.startsWith(s.type_prefix))
      .map((s) => ({
        subscription_uid: s.uid,
        event_seq: seqOf.get(row.id) ?? 0,
        state: "pending",
        attempts: 0,
        next_time: now,
        lease_owner: "",
        lease_until: null,
        last_status: 0,
        last_error: "",
        latency_ms: 0,
        create_time: now,
        update_time: now,
      }));
  });
  for (let i = 0; i < deliveries.length; i += 1000) {
    await db
      .insertInto("deliveries")
      .values(deliveries.slice(i, i + 1000))
      .execute();
  }
}
