import { AsyncLocalStorage } from "node:async_hooks";
import type { Socket } from "node:net";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import type { TokenIssuer } from "../../auth/index.ts";
import { createPullRecorder, type PullWriter } from "../../events/index.ts";
import { checkQuota, QuotaExceededError } from "../../lifecycle/index.ts";
import type { TermsGate } from "../../registry/index.ts";
import type { HttpRequest, HttpResponse } from "../../rpc/index.ts";
import type { BlobStore, BlobStoreDriver } from "../../store/blobs/index.ts";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import { deleteBlob, getBlob } from "./blobs.ts";
import { listCatalog, listReferrers, listTags, tagHistory } from "./discovery.ts";
import { createManifestCache } from "./manifest-cache.ts";
import { deleteManifest, getManifest, putManifest } from "./manifests.ts";
import { type OciContext, type OciRequest, sendJsonBody } from "./oci-context.ts";
import { ociError, sendOciError, toOciError } from "./oci-error.ts";
import { matchOciRoute } from "./oci-paths.ts";
import { settlePullTimes } from "./pull-times.ts";
import { createRegistryAuth, type RegistryAuth } from "./registry-auth.ts";
import { createRegistryMetrics, type RegistryGauges } from "./registry-metrics.ts";
import { createTokenEndpoint } from "./token-endpoint.ts";
import { type SweepResult, sweepUploads } from "./upload-sweep.ts";
import { createUploadHandlers, startUpload } from "./uploads.ts";

/** What the registry listener serves and how. */
export interface OciDoorOptions {
  db: Kysely<MetadataSchema>;
  blobs: BlobStore | BlobStoreDriver;
  tokens: TokenIssuer;
  /** The registry URL: the realm of challenges is `<registryUrl>/token`. */
  registryUrl: string;
  /** The registry token audience (the registry URL's host). */
  audience: string;
  /** Organisation anonymous callers may pull from. */
  publicOrg: string;
  /** Tags of the public organisation anonymous callers may pull. */
  freeTierTags: readonly string[];
  /** Refuses pulls until the required terms are accepted (--required-terms). */
  termsGate?: TermsGate;
  log: Logger;
  /**
   * The request id of a request from its `x-request-id` header; the server's, so both listeners
   * accept and make the same ids.
   */
  requestIdOf(header: string | string[] | undefined): string;
  /** The operator path segment of the tag history endpoint. Default `_lading`. */
  historySegment?: string;
  /** Upload sessions untouched this long expire. Default 1 hour. */
  uploadTtlMs?: number;
  /**
   * Temp files and objects that belong to no live session are removed once untouched this
   * long. Default 1 hour: a write in progress touches its file continually, so only a write
   * that died (or stalled for an hour) leaves one this old.
   */
  orphanTtlMs?: number;
  /** How often sessions and orphans are swept, after a first sweep at start. Default 1 minute. */
  sweepIntervalMs?: number;
  /** Lifetime of registry tokens. Default 300 seconds. */
  tokenTtlSeconds?: number;
  /** Whether manifest GETs and HEADs record pull events (--events-pulls). Default true. */
  eventsPulls?: boolean;
  /** Where pull events are written; by default through `db` on the request thread. */
  pullWriter?: PullWriter;
  /** The PostgreSQL pool's figures for /metrics; absent on SQLite. */
  pool?: RegistryGauges["pool"];
  /** The process's metrics (scans, deliveries, storage, uploads), served after the registry's. */
  sharedMetrics?: Registry;
  /** Whether the referrers API lists generated SBOMs (see OciContext). Default false. */
  generatedSbomReferrers?: boolean;
  /** Further metrics served at /metrics (the collector's and the storage gauges). */
  metricsRegistries?: Registry[];
  /** The metadata store's change mark (see RegistryAuthOptions). */
  changeMark?(): string | undefined;
  /** Told of every committed manifest push (see OciContext). */
  onManifestPushed?: OciContext["onManifestPushed"];
  /**
   * The answer to a `GET` of a probe path (`/healthz`, `/readyz`), undefined for other paths;
   * the server's, so both listeners answer probes alike. Default: no probes.
   */
  probe?(path: string): { status: number; body: string } | undefined;
}

/** What one request's access-log line and metrics learn while it is served. */
interface RequestNotes {
  route: string;
  caller?: string;
}

/** The registry listener's request handler, and its background sweeper. */
export interface OciDoor {
  handler(req: HttpRequest, res: HttpResponse): void;
  /** The registry's authentication, which the library repositories share. */
  readonly auth: RegistryAuth;
  /**
   * Sweeps now (or joins the sweep under way): expires idle upload sessions, then removes temp
   * data of no live session (see sweepUploads).
   */
  sweep(): Promise<SweepResult>;
  /** Stops the sweeper and waits for a sweep under way. */
  close(): Promise<void>;
}

/**
 * Creates the OCI distribution door (DESIGN §1, §6): `/v2/…` (distribution-spec 1.1: pull, push,
 * content discovery, content management, `_catalog`), `GET /token` (Docker token spec), the
 * tag history endpoint, `/metrics` and the probes. Every response carries `Docker-Distribution-API-Version: registry/2.0`.
 */
export function createOciDoor(options: OciDoorOptions): OciDoor {
  const { db, log } = options;
  const segment = options.historySegment ?? "_lading";
  const uploadTtlMs = options.uploadTtlMs ?? 3_600_000;
  const notes = new AsyncLocalStorage<RequestNotes>();
  const auth = createRegistryAuth({
    onCaller(subject) {
      const current = notes.getStore();
      if (current) current.caller = subject;
    },
    db,
    tokens: options.tokens,
    audience: options.audience,
    registryUrl: options.registryUrl,
    publicOrg: options.publicOrg,
    tokenTtlSeconds: options.tokenTtlSeconds,
    changeMark: options.changeMark,
  });
  const ctx: OciContext = {
    db,
    blobs: options.blobs,
    manifests: createManifestCache(),
    auth,
    publicOrg: options.publicOrg,
    freeTierTags: options.freeTierTags,
    termsGate: options.termsGate,
    log,
    onManifestPushed: options.onManifestPushed,
    registryUrl: options.registryUrl,
    generatedSbomReferrers: options.generatedSbomReferrers ?? false,
    quota: {
      async check(repo, added) {
        try {
          await checkQuota(db, options.registryUrl, repo.root_uid, added);
        } catch (error) {
          if (!(error instanceof QuotaExceededError)) throw error;
          const { used, quota, attempted } = error;
          throw ociError(403, "DENIED", error.message, { used, quota, attempted });
        }
      },
    },
    pulls:
      options.eventsPulls === false
        ? undefined
        : createPullRecorder({
            db,
            registryUrl: () => options.registryUrl,
            log,
            writer: options.pullWriter,
          }),
  };
  const token = createTokenEndpoint({ db, auth });
  const metrics = createRegistryMetrics({ pool: options.pool });
  const uploads = createUploadHandlers(uploadTtlMs);

  async function dispatch(r: OciRequest, path: string): Promise<void> {
    const { method } = r;
    const read = method === "GET" || method === "HEAD";
    const note = notes.getStore();
    if (path === "/token" && method === "GET") {
      if (note) note.route = "token";
      sendJsonBody(r.res, 200, await token(r.req.headers.authorization, r.query));
      return;
    }
    const probe = method === "GET" ? options.probe?.(path) : undefined;
    if (probe) {
      if (note) note.route = "probe";
      r.res.statusCode = probe.status;
      r.res.setHeader("content-type", "application/json");
      r.res.setHeader("content-length", Buffer.byteLength(probe.body));
      r.res.end(probe.body);
      return;
    }
    if (path === "/metrics" && method === "GET") {
      if (note) note.route = "metrics";
      const texts = [metrics.registry, ...(options.metricsRegistries ?? [])].map((m) =>
        m.metrics(),
      );
      if (options.sharedMetrics) texts.push(options.sharedMetrics.metrics());
      const text = (await Promise.all(texts)).join("\n");
      r.res.statusCode = 200;
      r.res.setHeader("content-type", metrics.registry.contentType);
      r.res.end(text);
      return;
    }
    const route = matchOciRoute(path, segment);
    if (!route) throw ociError(404, "UNSUPPORTED", `no endpoint ${method} ${path}`);
    if (note) note.route = route.kind;
    const refuse = () => {
      throw ociError(405, "UNSUPPORTED", `${method} is not supported on ${path}`);
    };
    switch (route.kind) {
      case "base":
        if (!read) return refuse();
        await auth.identify(r.req.headers.authorization);
        return sendJsonBody(r.res, 200, {}, {}, method === "HEAD");
      case "catalog":
        return method === "GET" ? listCatalog(ctx, r) : refuse();
      case "manifest":
        if (read) return getManifest(ctx, r, route);
        if (method === "PUT") return putManifest(ctx, r, route);
        return method === "DELETE" ? deleteManifest(ctx, r, route) : refuse();
      case "blob":
        if (read) return getBlob(ctx, r, route);
        return method === "DELETE" ? deleteBlob(ctx, r, route) : refuse();
      case "uploads":
        return method === "POST" ? startUpload(ctx, r, route) : refuse();
      case "upload":
        if (method === "PATCH") return uploads.patch(ctx, r, route);
        if (method === "PUT") return uploads.put(ctx, r, route);
        if (method === "GET") return uploads.status(ctx, r, route);
        return method === "DELETE" ? uploads.cancel(ctx, r, route) : refuse();
      case "tags":
        return read ? listTags(ctx, r, route) : refuse();
      case "referrers":
        return method === "GET" ? listReferrers(ctx, r, route) : refuse();
      case "history":
        return method === "GET" ? tagHistory(ctx, r, route) : refuse();
    }
  }

  const sweepOptions = { uploadTtlMs, orphanTtlMs: options.orphanTtlMs ?? 3_600_000 };
  let sweeping: Promise<SweepResult> | undefined;
  const sweep = () => {
    sweeping ??= sweepUploads(ctx, options.blobs as Partial<BlobStoreDriver>, sweepOptions).finally(
      () => {
        sweeping = undefined;
      },
    );
    return sweeping;
  };
  const sweepQuietly = () => {
    sweep().catch((err: unknown) => log.warn({ err }, "upload sweep failed"));
  };
  // At start too: what a killed process left behind should not wait for the first tick.
  sweepQuietly();
  const sweeper = setInterval(sweepQuietly, options.sweepIntervalMs ?? 60_000);
  sweeper.unref();

  return {
    auth,
    handler(req, res) {
      const started = performance.now();
      const requestId = options.requestIdOf(req.headers["x-request-id"]);
      res.setHeader("x-request-id", requestId);
      res.setHeader("docker-distribution-api-version", "registry/2.0");
      const target = req.url ?? "/";
      const q = target.indexOf("?");
      const path = q < 0 ? target : target.slice(0, q);
      const method = req.method ?? "GET";
      const query = new URLSearchParams(q < 0 ? "" : target.slice(q + 1));
      const note: RequestNotes = { route: "none" };
      const socket = req.httpVersionMajor === 1 ? (req.socket as Socket) : undefined;
      const readBefore = socket?.bytesRead ?? 0;
      res.once("close", () => {
        const seconds = (performance.now() - started) / 1000;
        const status = res.statusCode;
        metrics.observe(note.route, method, status, seconds);
        if (method === "GET" && (status === 200 || status === 206) && res.writableFinished) {
          metrics.sent(Number(res.getHeader("content-length") ?? 0));
        }
        if (status >= 200 && status < 300 && method !== "GET" && method !== "HEAD") {
          // A chunked body declares no length; on HTTP/1.1 requests on one connection come one
          // after another, so the socket's count since the headers is this request's body.
          const declared = req.headers["content-length"];
          const bytes =
            declared !== undefined ? Number(declared) : socket ? socket.bytesRead - readBefore : 0;
          if (bytes > 0) metrics.received(bytes);
        }
        const durationMs = Math.round(seconds * 1e4) / 10;
        const line = {
          requestId,
          method,
          path,
          status,
          durationMs,
          door: "oci",
          caller: note.caller,
        };
        log.info(line, "request");
      });
      notes.run(note, () =>
        dispatch({ req, res, method, query, requestId }, path).catch((err: unknown) => {
          sendOciError(res, toOciError(err, requestId, log), method === "HEAD");
        }),
      );
    },
    sweep,
    async close() {
      clearInterval(sweeper);
      await sweeping?.catch(() => undefined);
      await ctx.pulls?.close();
      await settlePullTimes(ctx.db);
    },
  };
}
