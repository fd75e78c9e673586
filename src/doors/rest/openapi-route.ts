import { readFileSync } from "node:fs";
import type { BoundService, RawRoute } from "../../rpc/index.ts";
import { sendJson } from "./render-error.ts";

type Operation = { "x-lading-method"?: string; security?: unknown[] };
type Document = { paths: Record<string, Record<string, Operation>> };

/**
 * `GET /openapi.json`: the document `npm run generate` writes from the protos, served without
 * credentials like the issuer documents. Which methods need no token is known only here, from
 * the bound services, so those operations get `security: []` when the route is built.
 */
export function createOpenApiRoute(services: BoundService[]): RawRoute {
  const document = JSON.parse(
    readFileSync(new URL("../../gen/openapi.json", import.meta.url), "utf8"),
  ) as Document;
  const anonymous = new Set(services.flatMap((s) => [...(s.anonymous ?? [])]));
  for (const operations of Object.values(document.paths)) {
    for (const operation of Object.values(operations)) {
      if (anonymous.has(operation["x-lading-method"] ?? "")) operation.security = [];
    }
  }
  const body = JSON.stringify(document);
  return {
    method: "GET",
    path: "/openapi.json",
    async handle(_req, res) {
      res.setHeader("cache-control", "public, max-age=300");
      sendJson(res, 200, body);
    },
  };
}
