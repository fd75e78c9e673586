import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { matchPathTemplate, parsePathTemplate } from "./path-template.ts";

function template(source: string) {
  const parsed = parsePathTemplate(source);
  if (parsed.error !== undefined) throw new Error(parsed.error);
  return parsed.value;
}

describe("path templates", () => {
  it("parses literals, variables, nested field paths and verbs", () => {
    const t = template("/iam/v2/groups/{group.uid=**}");
    assert.deepEqual(t.variables, [{ fieldPath: ["group", "uid"], start: 3, end: 4 }]);
    assert.equal(t.literals, 3);
    const verb = template("/iam/v2/roleBindings:batchCreate");
    assert.equal(verb.verb, "batchCreate");
    assert.equal(template("/v1/{name=rooms/*}:archive").verb, "archive");
  });

  it("refuses malformed templates with an error, not an exception", () => {
    for (const bad of ["iam", "/a/{x", "/a/{1x}", "/a/**/**", "/a/{x=**}/{y=**}", "/a/b c"]) {
      assert.ok(parsePathTemplate(bad).error, bad);
    }
  });

  it("matches * to one segment and ** to the rest, at least one segment", () => {
    const one = template("/ping/v2/{x}");
    assert.deepEqual([...(matchPathTemplate(one, "/ping/v2/a")?.value ?? [])], [["x", "a"]]);
    assert.equal(matchPathTemplate(one, "/ping/v2/a/b"), undefined);
    assert.equal(matchPathTemplate(one, "/ping/v2/"), undefined);
    const deep = template("/iam/v2/identities/{uid=**}");
    assert.equal(matchPathTemplate(deep, "/iam/v2/identities/a/b/c")?.value?.get("uid"), "a/b/c");
    assert.equal(matchPathTemplate(deep, "/iam/v2/identities"), undefined);
  });

  it("matches ** followed by literals and * to what those leave", () => {
    const t = template("/registry/v1/repos/{repo_id=**}/digests/{digest}/vulnreport");
    const bound = matchPathTemplate(t, "/registry/v1/repos/a/b/c/digests/sha256:1/vulnreport");
    assert.deepEqual(
      [...(bound?.value ?? [])],
      [
        ["repo_id", "a/b/c"],
        ["digest", "sha256:1"],
      ],
    );
    assert.equal(
      matchPathTemplate(t, "/registry/v1/repos/a/digests/d/vulnreport")?.value?.get("repo_id"),
      "a",
    );
    assert.equal(matchPathTemplate(t, "/registry/v1/repos/digests/d/vulnreport"), undefined);
    assert.equal(matchPathTemplate(t, "/registry/v1/repos/a/b/digests/d/report"), undefined);
  });

  it("decodes each segment and reports the variable of a bad one", () => {
    const deep = template("/iam/v2/identities/{uid=**}");
    assert.equal(
      matchPathTemplate(deep, "/iam/v2/identities/a%2Fb/c%20d")?.value?.get("uid"),
      "a/b/c d",
    );
    assert.deepEqual(matchPathTemplate(deep, "/iam/v2/identities/%zz"), { error: "uid" });
  });

  it("matches a custom verb only when present", () => {
    const t = template("/v1/{name=rooms/*}:archive");
    assert.equal(matchPathTemplate(t, "/v1/rooms/r1:archive")?.value?.get("name"), "rooms/r1");
    assert.equal(matchPathTemplate(t, "/v1/rooms/r1"), undefined);
  });

  it("keeps a collection verb apart from the collection's own ** template", () => {
    const verb = template("/registry/v2/images:diff");
    const deep = template("/registry/v2/images/{repo_uid=**}");
    assert.equal(matchPathTemplate(verb, "/registry/v2/images:diff")?.value?.size, 0);
    assert.equal(matchPathTemplate(deep, "/registry/v2/images:diff"), undefined);
    assert.equal(matchPathTemplate(verb, "/registry/v2/images:vex"), undefined);
    assert.equal(matchPathTemplate(verb, "/registry/v2/images/x:diff"), undefined);
  });
});
