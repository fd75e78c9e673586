import assert from "node:assert/strict";
import { test } from "node:test";
import { CapabilitySchema } from "../gen/lading/iam/v2/capabilities_pb.js";
import {
  capabilities,
  capabilityFromEnum,
  capabilityToEnum,
  isCapability,
} from "./capabilities.ts";

test("every enum value maps to a dotted name and back", () => {
  for (const value of CapabilitySchema.values) {
    const dotted = capabilityFromEnum(value.number);
    if (value.number === 0) {
      assert.equal(dotted, undefined);
      continue;
    }
    assert.ok(dotted, `${value.name} has no dotted name`);
    assert.equal(`CAP_${dotted.toUpperCase().replaceAll(".", "_")}`, value.name);
    assert.equal(capabilityToEnum(dotted), value.number);
  }
});

test("the dotted list has the enum's set and order", () => {
  const numbers = CapabilitySchema.values.filter((v) => v.number !== 0).map((v) => v.number);
  assert.deepEqual(capabilities.map(capabilityToEnum), numbers);
  assert.equal(new Set(capabilities).size, capabilities.length);
});

test("unknown names and numbers map to undefined", () => {
  assert.equal(capabilityToEnum("repo.fly"), undefined);
  assert.equal(capabilityToEnum("CAP_REPO_LIST"), undefined);
  assert.equal(capabilityFromEnum(9999), undefined);
  assert.equal(isCapability("repo.list"), true);
  assert.equal(isCapability("role.bindings.list"), false);
});
