import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { type DescService, getOption } from "@bufbuild/protobuf";
import { Validator } from "@seriousme/openapi-schema-validator";
import { http } from "../../src/gen/google/api/annotations_pb.js";
import { startTestServer, type TestServer } from "../support/server.ts";

type Operation = {
  "x-lading-method": string;
  security?: unknown[];
  parameters: { name: string; in: string; "x-lading-field"?: string }[];
};
type Document = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};

/** Every service of the generated code, found by walking src/gen/lading. */
async function generatedServices(): Promise<DescService[]> {
  const root = new URL("../../src/gen/lading/", import.meta.url);
  const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) =>
    f.endsWith("_pb.js"),
  );
  const services: DescService[] = [];
  for (const file of files) {
    const module = (await import(new URL(file, root).href)) as Record<string, { kind?: string }>;
    for (const value of Object.values(module)) {
      if (value?.kind === "service") services.push(value as DescService);
    }
  }
  return services;
}

/** Every `google.api.http` binding: `[verb, OpenAPI path, pkg.Service/Method]`. */
function bindings(services: DescService[]): [string, string, string][] {
  const out: [string, string, string][] = [];
  for (const service of services) {
    for (const method of service.methods) {
      const rule = getOption(method, http);
      for (const r of [rule, ...rule.additionalBindings]) {
        if (r.pattern.case === undefined || r.pattern.case === "custom") continue;
        const path = r.pattern.value.replace(/\{([^}=]+)(=[^}]*)?\}/g, "{$1}");
        out.push([r.pattern.case, path, `${service.typeName}/${method.name}`]);
      }
    }
  }
  return out;
}

/** A path with its variable names taken out: `/iam/v2/groups/{parent}` → `/iam/v2/groups/{}`. */
const shapeOf = (path: string) => path.replace(/\{[^}]*\}/g, "{}");

/** The operation bound to `verb` on the template of `path`, whatever its variables are named. */
function operationAt(doc: Document, verb: string, path: string): Operation | undefined {
  const found = Object.keys(doc.paths).filter((p) => shapeOf(p) === shapeOf(path));
  return found.length === 1 ? doc.paths[found[0]][verb] : undefined;
}

function refsOf(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsOf(v, into);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") into.push(v);
      else refsOf(v, into);
    }
  }
  return into;
}

describe("OpenAPI document", () => {
  let server: TestServer;
  let doc: Document;
  before(async () => {
    server = await startTestServer("sqlite");
    const res = await fetch(`${server.apiUrl}/openapi.json`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /application\/json/);
    doc = (await res.json()) as Document;
  });
  after(() => server?.close());

  it("is a valid OpenAPI 3.1 document, served without credentials", async () => {
    assert.equal(doc.openapi, "3.1.0");
    const result = await new Validator().validate(
      structuredClone(doc) as Parameters<Validator["validate"]>[0],
    );
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1));
  });

  it("describes every REST binding of every service in the protos", async () => {
    const all = bindings(await generatedServices());
    assert.ok(all.length > 40, `only ${all.length} bindings found`);
    for (const [verb, path, method] of all) {
      assert.equal(operationAt(doc, verb, path)?.["x-lading-method"], method, `${verb} ${path}`);
    }
    const described = Object.values(doc.paths).flatMap((ops) => Object.keys(ops)).length;
    assert.equal(described, all.length, "the document describes routes the protos do not bind");
  });

  it("has one path item per template, as OpenAPI 3.1 requires, whatever its variables are named", () => {
    const seen = new Map<string, string>();
    for (const path of Object.keys(doc.paths)) {
      const shape = shapeOf(path);
      assert.equal(seen.get(shape), undefined, `${path} and ${seen.get(shape)} are one template`);
      seen.set(shape, path);
    }
    // Create, Get, Update and Delete of a group share the template of its uid.
    assert.deepEqual(Object.keys(doc.paths["/iam/v2/groups/{uid}"] ?? {}).sort(), [
      "delete",
      "get",
      "patch",
      "post",
    ]);
  });

  it("declares each template variable as a path parameter of every operation on it", () => {
    for (const [path, operations] of Object.entries(doc.paths)) {
      const names = [...path.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]).sort();
      for (const [verb, operation] of Object.entries(operations)) {
        const declared = operation.parameters.filter((p) => p.in === "path").map((p) => p.name);
        assert.deepEqual(declared.sort(), names, `${verb} ${path}`);
      }
    }
  });

  it("describes only routes the server answers", async () => {
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const verb of Object.keys(operations)) {
        const concrete = path.replace(/\{[^}]+\}/g, "0000000000000000000000000000000000000000");
        const res = await fetch(`${server.apiUrl}${concrete}`, {
          method: verb.toUpperCase(),
          headers: {
            authorization: `Bearer ${server.org.token}`,
            "content-type": "application/json",
          },
          body: verb === "get" || verb === "delete" ? undefined : "{}",
        });
        const text = await res.text();
        assert.ok(
          res.status !== 405 && !text.includes("no endpoint"),
          `${verb} ${path}: ${res.status} ${text}`,
        );
      }
    }
  });

  it("answers only GET, and ignores a query string", async () => {
    const post = await fetch(`${server.apiUrl}/openapi.json`, { method: "POST", body: "{}" });
    assert.ok(post.status === 404 || post.status === 405, `POST answered ${post.status}`);
    await post.arrayBuffer();
    const queried = await fetch(`${server.apiUrl}/openapi.json?x=${"a".repeat(4000)}`);
    assert.equal(queried.status, 200);
    assert.deepEqual(await queried.json(), doc);
  });

  it("resolves every $ref to a schema it holds", () => {
    for (const ref of refsOf(doc)) {
      const name = ref.replace("#/components/schemas/", "");
      assert.ok(doc.components.schemas[name], `dangling ${ref}`);
    }
  });

  it("carries each method's capabilities from its authorization option", () => {
    const update = doc.paths["/iam/v2/roles/{uid}"]?.patch as unknown as Record<string, unknown>;
    assert.ok((update["x-lading-capabilities"] as string[]).includes("roles.update"));
    assert.equal(update["x-lading-grants"], true);
  });

  it("marks the methods that need no token, and only those", () => {
    const ping = doc.paths["/ping/v2/ping"]?.get;
    assert.deepEqual(ping?.security, []);
    assert.equal(doc.paths["/iam/v2/groups"]?.get?.security, undefined);
  });

  it("names each path variable as the template does, and the request field it fills", () => {
    const roles = doc.paths["/iam/v2/roles/{uid}"];
    const update = roles?.patch?.parameters.find((p) => p.in === "path");
    assert.deepEqual(update && [update.name, update["x-lading-field"]], ["uid", "role.uid"]);
    const create = roles?.post?.parameters.find((p) => p.in === "path");
    assert.deepEqual(create && [create.name, create["x-lading-field"]], ["uid", "parent"]);
    const get = roles?.get?.parameters.find((p) => p.in === "path");
    assert.deepEqual(get && [get.name, get["x-lading-field"]], ["uid", undefined]);
    assert.ok(roles?.patch?.parameters.some((p) => p.name === "update_mask" && p.in === "query"));
  });
});
