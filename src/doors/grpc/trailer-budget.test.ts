import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { findTrailerError, setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import {
  BadRequestSchema,
  ErrorInfoSchema,
  ResourceInfoSchema,
} from "../../gen/google/rpc/error_details_pb.js";
import { cutMarker, fitTrailers, shorten, trailerBudgetBytes } from "./trailer-budget.ts";

/** The trailers of `violations` field violations, as the library writes them. */
function trailersOf(violations: number, message = "Invalid argument: many fields") {
  const error = new ConnectError(message, Code.InvalidArgument, undefined, [
    {
      desc: ErrorInfoSchema,
      value: create(ErrorInfoSchema, { reason: "INVALID_ARGUMENT", domain: "iam.lading.dev" }),
    },
    {
      desc: BadRequestSchema,
      value: create(BadRequestSchema, {
        fieldViolations: Array.from({ length: violations }, (_, i) => ({
          field: `document_ids[${i}]`,
          description: "must match the pattern ^[a-z0-9][a-z0-9._-]{0,127}$",
        })),
      }),
    },
    { desc: ResourceInfoSchema, value: create(ResourceInfoSchema, { resourceType: "group" }) },
  ]);
  return setTrailerStatus(new Headers(), error);
}

/** The size HTTP/2 counts for a header list: name + value + 32 per field. */
function listSize(headers: Headers): number {
  let size = 0;
  headers.forEach((value, name) => {
    size += name.length + value.length + 32;
  });
  return size;
}

test("trailers within the budget are left exactly as they are", () => {
  const trailers = trailersOf(10);
  const before = [...trailers.entries()];
  fitTrailers(trailers);
  assert.deepEqual([...trailers.entries()], before);
});

test("a larger error is cut to fit, keeping its code, reason and first violations in order", () => {
  for (const [violations, message] of [
    [2000, "Invalid argument: many fields"],
    [3, `Invalid argument: ${"é ".repeat(20_000)}`],
  ] as const) {
    const trailers = trailersOf(violations, message);
    assert.ok(listSize(trailers) > trailerBudgetBytes);
    fitTrailers(trailers);
    assert.ok(listSize(trailers) <= trailerBudgetBytes, `${listSize(trailers)} bytes`);
    const error = findTrailerError(trailers);
    assert.ok(error);
    assert.equal(error.code, Code.InvalidArgument);
    assert.ok(error.rawMessage.startsWith("Invalid argument: "));
    assert.equal(decodeURIComponent(trailers.get("grpc-message") ?? ""), error.rawMessage);
    assert.equal(error.findDetails(ErrorInfoSchema)[0].domain, "iam.lading.dev");
    assert.equal(error.findDetails(ResourceInfoSchema)[0].resourceType, "group");
    const kept = error.findDetails(BadRequestSchema)[0].fieldViolations;
    assert.ok(kept.length > 0 && kept.length <= violations);
    assert.deepEqual(
      kept.map((v) => v.field),
      kept.map((_, i) => `document_ids[${i}]`),
    );
    if (violations > 3) assert.ok(kept.length < violations);
    if (message.length > 1000) assert.ok(error.rawMessage.endsWith(cutMarker));
  }
});

test("a smaller budget keeps less, down to the status alone", () => {
  for (const budget of [4096, 1024, 300]) {
    const trailers = trailersOf(500);
    fitTrailers(trailers, budget);
    assert.ok(listSize(trailers) <= budget, `${budget}: ${listSize(trailers)}`);
    assert.equal(trailers.get("grpc-status"), "3");
  }
});

test("messages are cut on whole characters and come out well-formed", () => {
  assert.equal(shorten("short", 100), "short");
  const cut = shorten(`${"😀".repeat(100)}`, 200);
  assert.ok(cut.endsWith(cutMarker));
  assert.ok(cut.isWellFormed());
  assert.ok(encodeURIComponent(cut).length <= 200);
  assert.equal(shorten("a\ud800b", 100), "a\ufffdb");
});
