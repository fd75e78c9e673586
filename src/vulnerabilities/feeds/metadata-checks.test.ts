import assert from "node:assert/strict";
import { test } from "node:test";
import { isCalendarDate, isCveId, utcTimestamp } from "./metadata-checks.ts";

test("CVE ids", () => {
  for (const id of ["CVE-2024-0001", "CVE-1999-0001", "CVE-2024-1234567"])
    assert.equal(isCveId(id), true, id);
  for (const id of [
    "CVE-2024-001",
    "cve-2024-0001",
    "CVE-24-0001",
    "GHSA-xxxx",
    " CVE-2024-0001",
    7,
    undefined,
  ]) {
    assert.equal(isCveId(id), false, String(id));
  }
});

test("calendar dates", () => {
  for (const date of ["2024-02-29", "2025-12-31"]) assert.equal(isCalendarDate(date), true, date);
  for (const date of ["2025-02-29", "2025-13-01", "2025-1-01", "2025-01-01T00:00:00Z", "", null]) {
    assert.equal(isCalendarDate(date), false, String(date));
  }
});

test("timestamps become UTC with milliseconds; zone-less ones are UTC", () => {
  assert.equal(utcTimestamp("2022-07-11T13:15:08.503"), "2022-07-11T13:15:08.503Z");
  assert.equal(utcTimestamp("2022-07-11T13:15:08"), "2022-07-11T13:15:08.000Z");
  assert.equal(utcTimestamp("2022-07-11T13:15:08.5Z"), "2022-07-11T13:15:08.500Z");
  assert.equal(utcTimestamp("2022-07-11T13:15:08-02:00"), "2022-07-11T15:15:08.000Z");
  for (const bad of [
    "2022-07-11",
    "2023-02-30T00:00:00",
    "2022-07-11 13:15:08",
    "yesterday",
    5,
    undefined,
  ]) {
    assert.equal(utcTimestamp(bad), undefined, String(bad));
  }
});
