import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import type { DescService, JsonObject } from "@bufbuild/protobuf";
import { RegistryService } from "../../src/gen/lading/registry/v1/registry_pb.js";
import { ImagesService } from "../../src/gen/lading/registry/v2/images_pb.js";
import { ReposService } from "../../src/gen/lading/registry/v2/repos_pb.js";
import { TagsService } from "../../src/gen/lading/registry/v2/tags_pb.js";
import { createBlobStore } from "../../src/store/blobs/index.ts";
import { grpcCaller, listRequest, type Result, restCall } from "./api-client.ts";
import type { TestServer } from "./server.ts";

type Params = Record<string, string | number>;

/** The registry management API over REST or gRPC, answering in proto3 JSON either way. */
export interface RegistryApi {
  listRepos(params?: Params): Promise<Result>;
  getRepo(uid: string): Promise<Result>;
  createRepo(parent: string, body: JsonObject): Promise<Result>;
  updateRepo(uid: string, body: JsonObject, mask?: string): Promise<Result>;
  deleteRepo(uid: string): Promise<Result>;
  listTags(params?: Params): Promise<Result>;
  getTag(uid: string): Promise<Result>;
  createTag(parent: string, body: JsonObject): Promise<Result>;
  updateTag(uid: string, body: JsonObject, mask?: string): Promise<Result>;
  deleteTag(uid: string): Promise<Result>;
  getImage(repoUid: string, digest: string, architecture?: string): Promise<Result>;
  listEolTags(params?: Params): Promise<Result>;
  listTagHistory(tagUid: string, params?: { start?: string; end?: string }): Promise<Result>;
  getVulnReport(repoId: string, digest: string): Promise<Result>;
  listVulnCountReports(params: Params, cumulative?: boolean): Promise<Result>;
}

interface Call {
  service: DescService;
  method: string;
  request: JsonObject;
  http: [method: string, path: string, body?: JsonObject];
}

/** The registry API for `transport` with `token`. */
export function registryApi(
  transport: "rest" | "grpc",
  baseUrl: string,
  token: string | undefined,
): RegistryApi {
  const send = transport === "rest" ? restSender(baseUrl, token) : grpcSender(baseUrl, token);
  const q = (params: Params) => {
    const text = new URLSearchParams(
      Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    return text ? `?${text}` : "";
  };
  const maskOf = (mask?: string): Record<string, string> =>
    mask === undefined ? {} : { updateMask: mask };
  const r = "/registry/v2";
  return {
    listRepos: (p = {}) =>
      send({
        service: ReposService,
        method: "listRepos",
        request: listRequest(p),
        http: ["GET", `${r}/repos${q(p)}`],
      }),
    getRepo: (uid) =>
      send({
        service: ReposService,
        method: "getRepo",
        request: { uid },
        http: ["GET", `${r}/repos/${uid}`],
      }),
    createRepo: (parent, body) =>
      send({
        service: ReposService,
        method: "createRepo",
        request: { parent, repo: body },
        http: ["POST", `${r}/repos/${parent}`, body],
      }),
    updateRepo: (uid, body, mask) =>
      send({
        service: ReposService,
        method: "updateRepo",
        request: { repo: { ...body, uid }, ...maskOf(mask) },
        http: ["PATCH", `${r}/repos/${uid}${q(maskOf(mask))}`, body],
      }),
    deleteRepo: (uid) =>
      send({
        service: ReposService,
        method: "deleteRepo",
        request: { uid },
        http: ["DELETE", `${r}/repos/${uid}`],
      }),
    listTags: (p = {}) =>
      send({
        service: TagsService,
        method: "listTags",
        request: listRequest(p),
        http: ["GET", `${r}/tags${q(p)}`],
      }),
    getTag: (uid) =>
      send({
        service: TagsService,
        method: "getTag",
        request: { uid },
        http: ["GET", `${r}/tags/${uid}`],
      }),
    createTag: (parent, body) =>
      send({
        service: TagsService,
        method: "createTag",
        request: { parent, tag: body },
        http: ["POST", `${r}/tags/${parent}`, body],
      }),
    updateTag: (uid, body, mask) =>
      send({
        service: TagsService,
        method: "updateTag",
        request: { tag: { ...body, uid }, ...maskOf(mask) },
        http: ["PATCH", `${r}/tags/${uid}${q(maskOf(mask))}`, body],
      }),
    deleteTag: (uid) =>
      send({
        service: TagsService,
        method: "deleteTag",
        request: { uid },
        http: ["DELETE", `${r}/tags/${uid}`],
      }),
    getImage: (repoUid, digest, architecture) => {
      const p: Params = architecture ? { digest, architecture } : { digest };
      return send({
        service: ImagesService,
        method: "getImage",
        request: { repoUid, ...p },
        http: ["GET", `${r}/images/${repoUid}${q(p)}`],
      });
    },
    listEolTags: (p = {}) =>
      send({
        service: RegistryService,
        method: "listEolTags",
        request: listRequest(p),
        http: ["GET", `/registry/v1/eoltags${q(p)}`],
      }),
    listTagHistory: (parentId, p = {}) =>
      send({
        service: RegistryService,
        method: "listTagHistory",
        request: { parentId, ...p },
        http: ["GET", `/registry/v1/tags/${parentId}/history${q(p)}`],
      }),
    getVulnReport: (repoId, digest) =>
      send({
        service: RegistryService,
        method: "getVulnReport",
        request: { repoId, digest },
        http: ["GET", `/registry/v1/repos/${repoId}/digests/${digest}/vulnreport`],
      }),
    listVulnCountReports: (p, cumulative = false) =>
      send({
        service: RegistryService,
        method: cumulative ? "listVulnCountReportsCumulative" : "listVulnCountReports",
        request: p,
        http: [
          "GET",
          `/registry/v1/vuln_reports/${cumulative ? "counts_cumulative" : "counts"}${q(p)}`,
        ],
      }),
  };
}

function restSender(baseUrl: string, token: string | undefined) {
  return ({ http: [method, path, body] }: Call): Promise<Result> =>
    restCall(baseUrl, token, method, path, body);
}

function grpcSender(baseUrl: string, token: string | undefined) {
  const grpc = grpcCaller(baseUrl, token);
  return ({ service, method, request }: Call): Promise<Result> => grpc(service, method, request);
}

/**
 * Stores `content` in the test server's blob store (the default filesystem store in its data
 * directory), as the OCI door would, and returns its descriptor fields.
 */
export async function putBlob(
  server: TestServer,
  content: string | JsonObject,
): Promise<{ digest: string; size: number; bytes: Buffer }> {
  const bytes = Buffer.from(typeof content === "string" ? content : JSON.stringify(content));
  const digest = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
  const blobs = await createBlobStore({ dataDir: server.store.options.dataDir });
  await blobs.put(Readable.from([bytes]), { expectedDigest: digest });
  return { digest, size: bytes.length, bytes };
}

/** Stores `manifest` as a manifest of repo `repoUid` (bytes in the blob store, row in manifests). */
export async function putManifest(
  server: TestServer,
  repoUid: string,
  manifest: JsonObject,
): Promise<string> {
  const { digest, size } = await putBlob(server, manifest);
  await server.lading.store.db
    .insertInto("manifests")
    .values({
      repo_uid: repoUid,
      digest,
      media_type: String(manifest.mediaType ?? ""),
      artifact_type: "",
      subject_digest: null,
      size,
      create_time: new Date().toISOString(),
    })
    .execute();
  return digest;
}

/** An image manifest with a config for `architecture` and layers of the given sizes. */
export async function putImage(
  server: TestServer,
  repoUid: string,
  architecture: string,
  layerSizes: number[],
): Promise<{
  digest: string;
  size: number;
  layers: { mediaType: string; digest: string; size: number }[];
}> {
  const config = await putBlob(server, { architecture, os: "linux", rootfs: { type: "layers" } });
  const layers = layerSizes.map((size, i) => ({
    mediaType: "application/vnd.oci.image.layer.v1.tar+gzip",
    digest: `sha256:${createHash("sha256").update(`${architecture}-${i}-${Math.random()}`).digest("hex")}`,
    size,
  }));
  const digest = await putManifest(server, repoUid, {
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: {
      mediaType: "application/vnd.oci.image.config.v1+json",
      digest: config.digest,
      size: config.size,
    },
    layers,
  });
  return { digest, size: config.size + layerSizes.reduce((a, b) => a + b, 0), layers };
}
