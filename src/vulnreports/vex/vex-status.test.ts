import assert from "node:assert/strict";
import { test } from "node:test";
import { falsePositiveTypes } from "../../vulnerabilities/index.ts";
import { justifications, vexStatusOf } from "./vex-status.ts";

const timestamp = "2026-01-01T00:00:00.000Z";
const openssl = { name: "openssl", version: "3.1.4-r0", ecosystem: "apk" };

test("fixed at or below the installed version is fixed; above it, affected with the update", () => {
  for (const fixedVersion of ["3.1.4-r0", "3.1.2-r5", "3.1.4_rc1-r0"]) {
    assert.deepEqual(vexStatusOf({ timestamp, type: "fixed", fixedVersion }, openssl), {
      status: "fixed",
    });
  }
  assert.deepEqual(vexStatusOf({ timestamp, type: "fixed", fixedVersion: "3.1.4-r1" }, openssl), {
    status: "affected",
    actionStatement: "Update openssl to 3.1.4-r1 or later",
  });
  const npm = { name: "lodash", version: "4.17.21", ecosystem: "npm" };
  assert.equal(
    vexStatusOf({ timestamp, type: "fixed", fixedVersion: "4.17.20" }, npm).status,
    "fixed",
  );
  assert.equal(
    vexStatusOf({ timestamp, type: "fixed", fixedVersion: "4.17.3" }, npm).status,
    "fixed",
  );
  assert.equal(
    vexStatusOf({ timestamp, type: "fixed", fixedVersion: "not a version" }, npm).status,
    "affected",
  );
});

test("every false-positive type maps to its formats §1.1 justification", () => {
  assert.deepEqual(Object.keys(justifications).sort(), [...falsePositiveTypes].sort());
  const status = vexStatusOf(
    {
      timestamp,
      type: "false-positive-determination",
      falsePositiveType: "component-vulnerability-mismatch",
      note: "  wrong package ",
    },
    openssl,
  );
  assert.deepEqual(status, {
    status: "not_affected",
    justification: "component_not_present",
    impactStatement: "wrong package",
  });
  assert.equal(
    justifications["vulnerability-record-analysis-contested"],
    "vulnerable_code_not_present",
  );
  assert.equal(justifications["vulnerable-code-version-not-used"], "vulnerable_code_not_present");
  assert.equal(justifications["inline-mitigations-exist"], "inline_mitigations_already_exist");
});

test("the other event types", () => {
  const of = (type: Parameters<typeof vexStatusOf>[0]["type"], note?: string) =>
    vexStatusOf({ timestamp, type, ...(note ? { note } : {}) }, openssl);
  assert.deepEqual(of("fix-not-planned", "EOL"), {
    status: "affected",
    actionStatement: "No fix is planned: EOL",
  });
  assert.deepEqual(of("pending-upstream-fix", "needs upstream"), {
    status: "affected",
    actionStatement: "A fix is pending upstream: needs upstream",
  });
  assert.deepEqual(of("analysis-not-planned"), {
    status: "under_investigation",
    statusNotes: "No analysis is planned",
  });
  assert.equal(of("detection").status, "affected");
  assert.equal(
    of("true-positive-determination", "confirmed").actionStatement,
    "No fix is available yet; watch for an updated image: confirmed",
  );
  assert.equal(
    vexStatusOf({ timestamp, type: "patched", patchedVersions: ["3.1.4-r0"] }, openssl).status,
    "fixed",
  );
});
