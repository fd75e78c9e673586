import { randomUUID } from "node:crypto";

/**
 * A new Ce-Id: a UUIDv7 (RFC 9562), the millisecond clock in its first 48 bits. Time-ordered
 * ids put each new row at the end of the events table's unique index instead of at a random page
 * of it, which halves the cost of writing a batch of pull events. The random bits come from
 * `randomUUID`, whose pooled entropy costs a fraction of a `randomFillSync` call per id (the
 * `uuid` package's v7 spent a third of a pull event's write there); ids made in the same
 * millisecond share the prefix and order among themselves at random, which the index does not
 * mind and nothing else relies on.
 */
export function newEventId(): string {
  const random = randomUUID();
  const clock = Date.now().toString(16).padStart(12, "0");
  return `${clock.slice(0, 8)}-${clock.slice(8)}-7${random.slice(15)}`;
}
