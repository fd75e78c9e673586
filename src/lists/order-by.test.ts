import assert from "node:assert/strict";
import { it } from "node:test";
import { parseOrderBy } from "./order-by.ts";

const fields = {
  uid: { column: "uid" },
  name: { column: "name" },
  created_at: { column: "create_time" },
};

it("parses a bare field as ascending and 'desc' as descending", () => {
  assert.deepEqual(parseOrderBy("name", fields, "uid").value, {
    field: "name",
    sort: fields.name,
    desc: false,
  });
  assert.deepEqual(parseOrderBy("  created_at   DESC ", fields, "uid").value?.desc, true);
  assert.deepEqual(parseOrderBy("name asc", fields, "uid").value?.desc, false);
});

it("uses the default field when empty", () => {
  assert.equal(parseOrderBy("", fields, "uid").value?.field, "uid");
});

it("refuses unknown fields, directions and extra words on order_by", () => {
  for (const text of [
    "colour",
    "name sideways",
    "name desc more",
    "createTime",
    "toString",
    "__proto__",
  ]) {
    assert.equal(parseOrderBy(text, fields, "uid").error?.field, "order_by", text);
  }
});
