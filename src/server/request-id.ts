import { randomUUID } from "node:crypto";

const VALID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * The request id of a request: the incoming `x-request-id` when it is at most 128 characters
 * of `[A-Za-z0-9._-]` (so a proxy's id carries through and nothing odd reaches the logs),
 * else a new random one.
 */
export function requestIdOf(header: string | string[] | undefined): string {
  const given = Array.isArray(header) ? header[0] : header;
  return given !== undefined && VALID.test(given) ? given : randomUUID();
}
