import { Readable } from "node:stream";
import type { JsonObject } from "@bufbuild/protobuf";
import { ArtifactsService } from "../../src/gen/lading/libraries/v2/libraries_pb.js";
import {
  type Ecosystem,
  type PublishResult,
  publishVersion,
  storeLibraryFile,
} from "../../src/libraries/index.ts";
import { grpcCaller, listRequest, type Result, restCall } from "./api-client.ts";
import { type Params, queryOf } from "./security-api.ts";
import type { TestServer } from "./server.ts";

/** One version to seed: its files' bytes go through the blob store as a publish's would. */
export interface SeedVersion {
  orgUid: string;
  ecosystem: Ecosystem;
  /** Canonical name. */
  name: string;
  /** Default: the name. */
  displayName?: string;
  version: string;
  description?: string;
  /** File name → content; default one file `<name>-<version>.bin`. */
  files?: Record<string, string>;
}

/**
 * Publishes one version straight into the server's stores (storeLibraryFile then
 * publishVersion), without any repository door: for catalogue tests and benchmarks.
 */
export async function seedVersion(server: TestServer, seed: SeedVersion): Promise<PublishResult> {
  const files = seed.files ?? {
    [`${seed.name.replaceAll(/[/:@]/g, "-")}-${seed.version}.bin`]: `${seed.name} ${seed.version}`,
  };
  const stored = [];
  for (const [filename, content] of Object.entries(files)) {
    stored.push({
      filename,
      stored: await storeLibraryFile(server.lading.blobs, Readable.from([Buffer.from(content)])),
      contentType: "application/octet-stream",
    });
  }
  return publishVersion(server.lading.store.db, {
    orgUid: seed.orgUid,
    ecosystem: seed.ecosystem,
    name: seed.name,
    displayName: seed.displayName ?? seed.name,
    version: seed.version,
    description: seed.description ?? `${seed.name} ${seed.version}`,
    files: stored,
    actor: { subject: "" },
    source: `${server.lading.registryUrl}/${seed.ecosystem}`,
  });
}

/** Seeds each of `versions` of one artifact, in the order given. */
export async function seedVersions(
  server: TestServer,
  seed: Omit<SeedVersion, "version">,
  versions: readonly string[],
): Promise<PublishResult[]> {
  const out: PublishResult[] = [];
  for (const version of versions) out.push(await seedVersion(server, { ...seed, version }));
  return out;
}

/** The catalogue API (`/libraries/v2/`) over REST or gRPC, answering in proto3 JSON. */
export function catalogueApi(
  transport: "rest" | "grpc",
  baseUrl: string,
  token: string | undefined,
) {
  const grpc = grpcCaller(baseUrl, token);
  const call = (method: string, path: string, params: Params, extra: JsonObject = {}) =>
    transport === "rest"
      ? restCall(baseUrl, token, "GET", `${path}${queryOf(params)}`)
      : grpc(ArtifactsService, method, { ...listRequest(params), ...extra });
  return {
    listArtifacts: (params: Params = {}): Promise<Result> =>
      call("listArtifacts", "/libraries/v2/artifacts", params),
    listVersions: (artifactId: string, params: Params = {}): Promise<Result> =>
      call(
        "listArtifactVersions",
        `/libraries/v2/artifacts/${encodeURIComponent(artifactId)}/versions`,
        params,
        { artifactId },
      ),
    count: (params: Params = {}): Promise<Result> =>
      call("getArtifactCount", "/libraries/v2/artifacts/count", params),
  };
}
