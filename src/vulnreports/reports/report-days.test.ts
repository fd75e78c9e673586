import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Violations } from "../../rpc/index.ts";
import { reportDays } from "./report-days.ts";

const now = Date.parse("2024-03-10T15:00:00Z");

describe("report days", () => {
  it("covers both bounds as UTC days, a date-time standing for its day", () => {
    const v = new Violations();
    const days = reportDays("2024-02-28T23:59:59Z", "2024-03-01", v, now);
    assert.ok(v.empty);
    assert.deepEqual(days, [
      { date: "2024-02-28", end: "2024-02-28T23:59:59.999Z" },
      { date: "2024-02-29", end: "2024-02-29T23:59:59.999Z" },
      { date: "2024-03-01", end: "2024-03-01T23:59:59.999Z" },
    ]);
    // +02:00 puts this instant on the previous UTC day.
    assert.equal(
      reportDays("2024-03-02T01:00:00+02:00", "2024-03-01", v, now)[0].date,
      "2024-03-01",
    );
  });

  it("defaults to the 30 days ending today and leaves out days after today", () => {
    const v = new Violations();
    const days = reportDays("", "", v, now);
    assert.equal(days.length, 30);
    assert.equal(days[0].date, "2024-02-10");
    assert.equal(days.at(-1)?.date, "2024-03-10");
    assert.deepEqual(
      reportDays("2024-03-09", "2024-04-01", v, now).map((d) => d.date),
      ["2024-03-09", "2024-03-10"],
    );
  });

  it("allows 366 days and refuses 367, reversed bounds and non-dates", () => {
    const fields = (from: string, to: string) => {
      const v = new Violations();
      reportDays(from, to, v, now);
      return v.list.map((x) => x.field);
    };
    assert.deepEqual(fields("2023-03-10", "2024-03-09"), []);
    assert.deepEqual(fields("2023-03-09", "2024-03-09"), ["from"]);
    assert.deepEqual(fields("2024-03-02", "2024-03-01"), ["from"]);
    assert.deepEqual(fields("2024-02-30", "2024-03-01"), ["from"]);
    assert.deepEqual(fields("2024-03-01", "March"), ["to"]);
    assert.deepEqual(fields("2024-03-01T10:00", "2024-03-02"), ["from"]);
  });
});
