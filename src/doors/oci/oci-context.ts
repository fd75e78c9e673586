import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { PullRecorder } from "../../events/index.ts";
import type { TermsGate } from "../../registry/index.ts";
import type { HttpRequest, HttpResponse } from "../../rpc/index.ts";
import { type BlobBody, type BlobStore, relieveBuffers } from "../../store/blobs/index.ts";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import type { ManifestCache } from "./manifest-cache.ts";
import { ociError } from "./oci-error.ts";
import type { RegistryAuth } from "./registry-auth.ts";

/** What every OCI handler shares. */
export interface OciContext {
  db: Kysely<MetadataSchema>;
  blobs: BlobStore;
  /** Manifest bytes by digest, so a manifest GET rarely touches the blob store. */
  manifests: ManifestCache;
  auth: RegistryAuth;
  publicOrg: string;
  freeTierTags: readonly string[];
  /** Refuses pulls until the required terms are accepted; absent means no terms. */
  termsGate?: TermsGate;
  log: Logger;
  /**
   * Told of every manifest once its push has committed (the scan queue listens). Called, never
   * awaited: it must not throw, and nothing it does can fail or slow the push.
   */
  onManifestPushed?(pushed: ManifestPushed): void;
  /** The registry URL: Ce-Source of push, pull and tag events. */
  registryUrl: string;
  /**
   * Whether the referrers API lists the SBOMs Lading generated (--scan-sbom-referrers); by
   * default a client reads back only what was pushed.
   */
  generatedSbomReferrers: boolean;
  /** Buffers pull events; absent when they are off. */
  pulls?: PullRecorder;
  /**
   * Refuses (403 DENIED with the numbers) a push that would store `added` beyond the quota of
   * `repo`'s organisation; absent: no quotas.
   */
  quota?: {
    check(repo: { root_uid: string }, added: { digest: string; size: number }[]): Promise<void>;
  };
}

/** What {@link OciContext.onManifestPushed} learns of a pushed manifest. */
export interface ManifestPushed {
  repoUid: string;
  digest: string;
  mediaType: string;
  /** `artifactType`, else the config media type, else "". */
  artifactType: string;
  /** "" for an index. */
  configMediaType: string;
  /** Media types of the layers, in order; none for an index. */
  layerMediaTypes: string[];
  subjectDigest: string | null;
  /** An index's entries; none for an image manifest. */
  childDigests: string[];
  /** The tags this push set (cosign names attestations by tag: `sha256-<hex>.att`). */
  tags: string[];
}

/** One request as the OCI handlers see it. */
export interface OciRequest {
  req: HttpRequest;
  res: HttpResponse;
  method: string;
  query: URLSearchParams;
  requestId: string;
}

/** Reads a request body of at most `limit` bytes; 413 SIZE_INVALID above it. */
export async function readLimited(req: HttpRequest, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > limit) {
    req.resume();
    throw ociError(413, "SIZE_INVALID", `the body exceeds ${limit} bytes`, { limit });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw ociError(413, "SIZE_INVALID", `the body exceeds ${limit} bytes`, { limit });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Answers with headers only, or with `body` streamed (never buffered). */
export async function sendStream(
  res: HttpResponse,
  status: number,
  headers: Record<string, string | number>,
  body: BlobBody | Readable | Buffer | undefined,
): Promise<void> {
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (body === undefined) {
    res.end();
    return;
  }
  if (Buffer.isBuffer(body)) {
    // Bytes already in memory (a cached manifest) go out in one write, without a pipeline.
    res.end(body);
    return;
  }
  if ("sendTo" in body && body.sendTo) {
    await body.sendTo(res as NodeJS.WritableStream);
    res.end();
    return;
  }
  body.on("data", (chunk: Buffer) => relieveBuffers(chunk.length));
  await pipeline(body, res as NodeJS.WritableStream);
}

/** Answers `status` with a JSON body. */
export function sendJsonBody(
  res: HttpResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
  head = false,
): void {
  const text = JSON.stringify(value);
  res.statusCode = status;
  for (const [name, v] of Object.entries(headers)) res.setHeader(name, v);
  if (!res.hasHeader("content-type")) res.setHeader("content-type", "application/json");
  res.setHeader("content-length", Buffer.byteLength(text));
  if (head) res.end();
  else res.end(text);
}

/** Numeric column values come back as strings from PostgreSQL. */
export const num = (value: string | number | bigint): number => Number(value);
