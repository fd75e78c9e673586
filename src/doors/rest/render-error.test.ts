import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Code } from "@connectrpc/connect";
import { invalidArgument, notFound } from "../../errors/index.ts";
import { httpStatusForCode, statusJson } from "./render-error.ts";

describe("REST error rendering", () => {
  it("maps gRPC codes to HTTP statuses like grpc-gateway", () => {
    const expected: [Code, number][] = [
      [Code.InvalidArgument, 400],
      [Code.NotFound, 404],
      [Code.AlreadyExists, 409],
      [Code.PermissionDenied, 403],
      [Code.FailedPrecondition, 400],
      [Code.Unauthenticated, 401],
      [Code.ResourceExhausted, 429],
      [Code.Internal, 500],
      [Code.Unavailable, 503],
      [Code.Unimplemented, 501],
      [Code.Aborted, 409],
      [Code.DeadlineExceeded, 504],
      [Code.OutOfRange, 400],
      [Code.Canceled, 499],
      [Code.Unknown, 500],
      [Code.DataLoss, 500],
    ];
    for (const [code, status] of expected)
      assert.equal(httpStatusForCode(code), status, Code[code]);
  });

  it("renders typed details: ErrorInfo, then BadRequest", () => {
    const err = invalidArgument("iam", [
      { field: "name", description: "must match the name pattern" },
    ]);
    assert.deepEqual(JSON.parse(statusJson(err)), {
      code: 3,
      message: "Invalid argument: name: must match the name pattern",
      details: [
        {
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: "INVALID_ARGUMENT",
          domain: "iam.lading.dev",
        },
        {
          "@type": "type.googleapis.com/google.rpc.BadRequest",
          fieldViolations: [{ field: "name", description: "must match the name pattern" }],
        },
      ],
    });
  });

  it("renders ResourceInfo for NOT_FOUND", () => {
    const body = JSON.parse(statusJson(notFound("iam", "identity", "abc")));
    assert.deepEqual(body.details[1], {
      "@type": "type.googleapis.com/google.rpc.ResourceInfo",
      resourceType: "identity",
      resourceName: "abc",
      description: "identity not found",
    });
  });
});
