import assert from "node:assert/strict";
import type { JsonObject } from "@bufbuild/protobuf";
import { type Result, restCall } from "./api-client.ts";
import type { Loose } from "./matrix.ts";
import type { TestServer } from "./server.ts";

/** An `events` row with its JSON columns parsed. */
export interface EventRow {
  seq: number;
  type: string;
  source: string;
  subject: string;
  group_uid: string;
  body_type: string;
  extensions: Record<string, string>;
  data: { actor: Loose; body: Loose };
}

/** The body of a successful result; fails the test otherwise. */
export const ok = (result: Result): Loose => {
  if (!result.ok) assert.fail(`call failed: ${result.code} ${result.message}`);
  return result.body as Loose;
};

/** Reads a test server's outbox: every event, the new ones, and the one new one. */
export function eventLog(server: () => TestServer, me: () => string) {
  let seen = 0;
  async function rows(): Promise<EventRow[]> {
    const all = await server()
      .lading.store.db.selectFrom("events")
      .selectAll()
      .orderBy("seq")
      .execute();
    return all.map((r) => ({
      ...r,
      seq: Number(r.seq),
      extensions: JSON.parse(r.extensions),
      data: JSON.parse(r.data),
    }));
  }
  /**
   * The events recorded since the last call. Sound only while one change runs at a time: on
   * PostgreSQL, seq order is not commit order across concurrent transactions.
   */
  async function fresh(): Promise<EventRow[]> {
    const all = (await rows()).filter((r) => r.seq > seen);
    if (all.length > 0) seen = all[all.length - 1].seq;
    return all;
  }
  /** The one event recorded since the last call, checked against what it must say. */
  async function only(type: string, subject: string, group: string, source: string) {
    const events = await fresh();
    assert.deepEqual(
      events.map((e) => e.type),
      [type],
    );
    const [event] = events;
    assert.equal(event.subject, subject, `${type} subject`);
    assert.equal(event.group_uid, group, `${type} group`);
    assert.equal(event.source, source, `${type} source`);
    assert.equal(event.data.actor.subject, me(), `${type} actor`);
    return event;
  }
  const call = (method: string, path: string, body?: JsonObject, token?: string) =>
    restCall(server().apiUrl, token ?? server().org.token, method, path, body);
  return { rows, fresh, only, call };
}
