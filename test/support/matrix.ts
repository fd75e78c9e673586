import { after, before, describe } from "node:test";
import type { JsonObject } from "@bufbuild/protobuf";
import type { ConfigInput } from "../../src/config/index.ts";
import { type Api, apiFor, type Result, transports } from "./api-client.ts";
import { startTestServer, type TestServer } from "./server.ts";
import { storeKinds } from "./stores.ts";

/** What a suite body gets: a running server, and the API as its organisation owner. */
export interface Harness {
  server: TestServer;
  transport: "rest" | "grpc";
  /** The API as the bootstrapped owner of organisation "acme". */
  api: Api;
  /** The API with another token, or none. */
  as(token: string | undefined): Api;
}

/** Registers `body` once per store (SQLite, PostgreSQL) and transport (REST, gRPC). */
export function matrix(title: string, body: (h: Harness) => void, config: ConfigInput = {}): void {
  for (const store of storeKinds) {
    for (const transport of transports) {
      describe(`${title} [${store}, ${transport}]`, () => {
        const h = { transport } as Harness;
        before(async () => {
          h.server = await startTestServer(store, "acme", config);
          h.api = apiFor(transport, h.server.apiUrl, h.server.org.token);
          h.as = (token) => apiFor(transport, h.server.apiUrl, token);
        });
        after(() => h.server?.close());
        body(h);
      });
    }
  }
}

/** A JSON answer as tests read it: any field, any shape. */
// biome-ignore lint/suspicious/noExplicitAny: tests assert on the shape themselves
export type Loose = Record<string, any>;

/** The body of a successful result; throws with the error otherwise. */
export function ok(result: Result): Loose {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result)}`);
  return result.body;
}

/** The error of a failed result; throws when it succeeded. */
export function failed(result: Result): Extract<Result, { ok: false }> {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.body)}`);
  return result;
}

/** The detail entry of type `google.rpc.<name>`. */
export function detail(result: Result, name: string): JsonObject | undefined {
  return failed(result).details.find(
    (d) => d["@type"] === `type.googleapis.com/google.rpc.${name}`,
  );
}

/** The BadRequest field violations of a failed result (none when there is no such entry). */
export function violations(result: Result): { field: string; description: string }[] {
  return (detail(result, "BadRequest")?.fieldViolations ?? []) as {
    field: string;
    description: string;
  }[];
}

/** ISO 8601 UTC with milliseconds and a Z suffix. */
export const timestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
