import assert from "node:assert/strict";
import { it } from "node:test";
import { parseExpiry } from "./tag-expiry.ts";

const from = new Date("2026-11-01T00:00:00.000Z");

it("reads RFC 3339 times and durations from the push", () => {
  assert.equal(parseExpiry("2026-12-01T00:00:00Z", from).value, "2026-12-01T00:00:00.000Z");
  assert.equal(parseExpiry("2026-12-01T02:00:00+02:00", from).value, "2026-12-01T00:00:00.000Z");
  assert.equal(parseExpiry("12h", from).value, "2026-11-01T12:00:00.000Z");
  assert.equal(parseExpiry("30d", from).value, "2026-12-01T00:00:00.000Z");
  assert.equal(parseExpiry("2w", from).value, "2026-11-15T00:00:00.000Z");
});

it("refuses anything else, and more than ten years ahead", () => {
  for (const bad of ["", "soon", "0d", "30", "30m", "2026-12-01", "2026-13-01T00:00:00Z", "-1d"]) {
    assert.ok(parseExpiry(bad, from).error, bad);
  }
  assert.match(parseExpiry("4000d", from).error ?? "", /ten years/);
  assert.match(parseExpiry("2040-01-01T00:00:00Z", from).error ?? "", /ten years/);
});
