import assert from "node:assert/strict";
import { describe, it } from "node:test";
import pino from "pino";
import { deliveryFailureLog } from "./failure-log.ts";

function capture() {
  const lines: { level: number; msg: string; failedAttempts?: number; subscription?: string }[] =
    [];
  const log = pino({ level: "debug" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { log, lines };
}

describe("deliveryFailureLog", () => {
  it("warns once, summarises every interval, and says when the sink answers again", () => {
    const { log, lines } = capture();
    let clock = 0;
    const failures = deliveryFailureLog(log, 15 * 60_000, () => clock);
    const fail = (subscription = "s1") =>
      failures.failed({ subscription, eventId: "e", status: 0, error: "connection refused" });

    // A day of retries every minute, far more often than the real backoff.
    for (; clock < 24 * 3_600_000; clock += 60_000) fail();
    const warnings = lines.filter((l) => l.level === 40);
    assert.match(warnings[0].msg, /^event delivery failed; retried with backoff/);
    const summaries = warnings.filter((l) => l.msg === "event deliveries still failing");
    assert.equal(summaries.length, 95, "one summary per 15 minutes after the first warning");
    assert.equal(summaries[0].failedAttempts, 15);
    assert.ok(
      lines.every((l) => l.level !== 30),
      "nothing at info while it fails",
    );
    assert.equal(lines.filter((l) => l.level === 20).length, 24 * 60 - 1, "each retry at debug");

    fail("s2");
    failures.delivered("s1");
    failures.delivered("s1");
    const back = lines.filter((l) => l.level === 30);
    assert.equal(back.length, 1);
    assert.equal(back[0].msg, "event deliveries succeed again");
    assert.equal(back[0].failedAttempts, 24 * 60);
    // s1 fails anew: a new first warning; s2 is still in its run.
    const before = lines.filter((l) => l.level === 40).length;
    fail("s1");
    fail("s2");
    assert.equal(lines.filter((l) => l.level === 40).length, before + 1);
  });
});
