import assert from "node:assert/strict";
import { it } from "node:test";
import { parseDuration } from "./duration.ts";

it("parses durations in seconds, minutes, hours and days, also combined", () => {
  assert.equal(parseDuration("90s").value, 90);
  assert.equal(parseDuration("15m").value, 900);
  assert.equal(parseDuration("720h").value, 720 * 3600);
  assert.equal(parseDuration("1h30m").value, 5400);
  assert.equal(parseDuration("2d").value, 172800);
});

it("refuses anything else", () => {
  for (const text of ["", "1", "h", "1x", "1h 30m", "-1h", "0s", "1.5h"])
    assert.ok(parseDuration(text).error, text);
});
