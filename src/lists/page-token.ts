import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { FieldViolation } from "../errors/index.ts";

/** Page tokens live three days (spec Limits); older ones restart the list. */
export const pageTokenLifetimeMs = 3 * 24 * 60 * 60 * 1000;

/** Where the next page starts: the sort value and uid of the last row served. */
export type Cursor = [value: string, uid: string];

interface TokenBody {
  /** Hash of the order and filters the token is bound to. */
  b: string;
  c: Cursor;
  /** Issue time, ms since the epoch. */
  t: number;
}

/** Issues and reads signed page tokens. */
export interface PageTokens {
  issue(binding: unknown, cursor: Cursor, now?: number): string;
  /**
   * Reads a token. `value` is the cursor, or undefined for an empty or expired token (the list
   * restarts from the first page, spec Errors rule 3). A forged, damaged or foreign token, or one
   * bound to another order or filters, is a violation on `page_token`.
   */
  read(token: string, binding: unknown, now?: number): { value?: Cursor; error?: FieldViolation };
}

/** Page tokens signed with HMAC-SHA256 under `secret`, shared by every replica. */
export function createPageTokens(secret: string): PageTokens {
  const sign = (payload: string) =>
    createHmac("sha256", secret).update(payload).digest().subarray(0, 16);
  const invalid = (description: string) => ({ error: { field: "page_token", description } });
  return {
    issue(binding, cursor, now = Date.now()) {
      const body: TokenBody = { b: bindingHash(binding), c: cursor, t: now };
      const payload = Buffer.from(JSON.stringify(body)).toString("base64url");
      return `${payload}.${sign(payload).toString("base64url")}`;
    },
    read(token, binding, now = Date.now()) {
      if (token === "") return {};
      const [payload, mac, extra] = token.split(".");
      if (!payload || !mac || extra !== undefined)
        return invalid("is not a page token of this list");
      const expected = sign(payload);
      const given = Buffer.from(mac, "base64url");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return invalid("is not a page token of this list");
      }
      const body = JSON.parse(Buffer.from(payload, "base64url").toString()) as TokenBody;
      if (now - body.t > pageTokenLifetimeMs) return {};
      if (body.b !== bindingHash(binding)) {
        return invalid("was issued for a different order_by or different filters");
      }
      return { value: body.c };
    },
  };
}

function bindingHash(binding: unknown): string {
  return createHash("sha256").update(JSON.stringify(binding)).digest("base64url").slice(0, 22);
}
