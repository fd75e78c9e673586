import assert from "node:assert/strict";
import { it } from "node:test";
import { planCount } from "./count-plan.ts";

const org = "a".repeat(40);
const team = `${org}/0000000000000001`;
const squad = `${team}/0000000000000002`;
const other = `${org}/0000000000000003`;

it("counts a whole scope as its subtree and itself", () => {
  assert.deepEqual(planCount({ scopes: [org] }, "", ""), {
    below: [org],
    children: [],
    selves: [org],
  });
});

it("narrows a scope to descendants_of inside it, or keeps a scope inside descendants_of", () => {
  assert.deepEqual(planCount({ scopes: [org] }, team, ""), {
    below: [team],
    children: [],
    selves: [],
  });
  assert.deepEqual(planCount({ scopes: [team] }, org, ""), {
    below: [team],
    children: [],
    selves: [team],
  });
  assert.deepEqual(planCount({ scopes: [team] }, other, ""), {
    below: [],
    children: [],
    selves: [],
  });
});

it("narrows to children_of inside a scope, or to the scope itself when it is the child", () => {
  assert.deepEqual(planCount({ scopes: [org] }, "", squad), {
    below: [],
    children: [squad],
    selves: [],
  });
  assert.deepEqual(planCount({ scopes: [team] }, "", org), {
    below: [],
    children: [],
    selves: [team],
  });
  assert.deepEqual(planCount({ scopes: [squad] }, "", org), {
    below: [],
    children: [],
    selves: [],
  });
});

it("adds visible parents' children only where the filters allow", () => {
  assert.deepEqual(planCount({ scopes: [], childrenOf: [""] }, "", "")?.children, [""]);
  assert.deepEqual(planCount({ scopes: [], childrenOf: [""] }, org, "")?.children, []);
  assert.deepEqual(planCount({ scopes: [], childrenOf: [""] }, "", org)?.children, []);
});

it("gives up when both uidp filters are set", () => {
  assert.equal(planCount({ scopes: [org] }, org, team), undefined);
});
