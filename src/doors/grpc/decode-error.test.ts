import assert from "node:assert/strict";
import { test } from "node:test";
import { Code, ConnectError } from "@connectrpc/connect";
import { BadRequestSchema, ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { GroupsService } from "../../gen/lading/iam/v2/groups_pb.js";
import { clientDecodeError } from "./decode-error.ts";

const listGroups = GroupsService.method.listGroups;

test("connect-es decode failures become INVALID_ARGUMENT with Lading's details", () => {
  const error = clientDecodeError(
    new ConnectError("parse binary: premature EOF", Code.Internal),
    listGroups,
  );
  assert.ok(error);
  assert.equal(error.code, Code.InvalidArgument);
  assert.equal(
    error.rawMessage,
    "Invalid argument: body: must be a binary lading.iam.v2.ListGroupsRequest message (premature EOF)",
  );
  const info = error.findDetails(ErrorInfoSchema)[0];
  assert.deepEqual([info.reason, info.domain], ["INVALID_ARGUMENT", "iam.lading.dev"]);
  assert.equal(error.findDetails(BadRequestSchema)[0].fieldViolations[0].field, "body");
  for (const message of [
    "decompression failed",
    "received compressed envelope, but do not know how to decompress",
  ]) {
    assert.equal(
      clientDecodeError(new ConnectError(message, Code.Internal), listGroups)?.code,
      Code.InvalidArgument,
    );
  }
  const json = new ConnectError(
    "cannot decode message lading.iam.v2.ListGroupsRequest from JSON: Array(0)",
    Code.InvalidArgument,
  );
  assert.match(clientDecodeError(json, listGroups)?.rawMessage ?? "", /must be a JSON .*Array/);
});

test("every other error is left as it is", () => {
  for (const error of [
    new ConnectError("internal error (request id r1)", Code.Internal),
    new ConnectError("serialize binary: boom", Code.Internal),
    new ConnectError("parse binary: premature EOF", Code.Unknown),
    new ConnectError("protocol error: missing input message for unary method", Code.Unimplemented),
    new ConnectError("message size is larger than configured readMaxBytes", Code.ResourceExhausted),
  ]) {
    assert.equal(clientDecodeError(error, listGroups), undefined, error.rawMessage);
  }
});
