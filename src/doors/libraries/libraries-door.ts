import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { asLadingError } from "../../errors/index.ts";
import { type Ecosystem, isEcosystem, LibraryError } from "../../libraries/index.ts";
import { type HttpRequest, type HttpResponse, markAuthenticatedUpload } from "../../rpc/index.ts";
import type { BlobStore } from "../../store/blobs/index.ts";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import type { RegistryAuth } from "../oci/registry-auth.ts";
import { createLibraryAuth, LibraryUnauthorized } from "./library-auth.ts";
import type { EcosystemHandler, LibraryContext, LibraryRequest } from "./library-context.ts";
import { serveMaven } from "./maven/maven-door.ts";
import { serveNpm } from "./npm/npm-door.ts";
import { servePython } from "./python/python-door.ts";

/** What the library repositories need from the server. */
export interface LibrariesDoorOptions {
  db: Kysely<MetadataSchema>;
  blobs: BlobStore;
  /** The registry's authentication: the same credentials work for images and libraries. */
  auth: RegistryAuth;
  registryUrl: string;
  publicOrg: string;
  log: Logger;
  requestIdOf(header: string | string[] | undefined): string;
  /** Largest file in one upload. Default 1 GiB. */
  maxFileBytes?: number;
}

/** The library repositories on the registry listener: `/<ecosystem>/<org>/…`. */
export interface LibrariesDoor {
  /** Whether the path belongs to a library repository rather than the OCI registry. */
  owns(path: string): boolean;
  handler(req: HttpRequest, res: HttpResponse): void;
}

const handlers: Record<Ecosystem, EcosystemHandler> = {
  python: servePython,
  javascript: serveNpm,
  java: serveMaven,
};

/** Creates the library repositories' door. */
export function createLibrariesDoor(options: LibrariesDoorOptions): LibrariesDoor {
  const { log } = options;
  const registryUrl = options.registryUrl.replace(/\/+$/, "");
  const authorize = createLibraryAuth({
    db: options.db,
    auth: options.auth,
    publicOrg: options.publicOrg,
  });
  const ctx: LibraryContext = {
    db: options.db,
    blobs: options.blobs,
    log,
    registryUrl,
    maxFileBytes: options.maxFileBytes ?? 1024 ** 3,
    async authorize(r, action) {
      const caller = await authorize(r, action);
      if (action === "publish") markAuthenticatedUpload(r.req);
      return caller;
    },
  };

  return {
    owns(path) {
      const slash = path.indexOf("/", 1);
      return isEcosystem(path.slice(1, slash < 0 ? undefined : slash));
    },
    handler(req, res) {
      const started = performance.now();
      const requestId = options.requestIdOf(req.headers["x-request-id"]);
      res.setHeader("x-request-id", requestId);
      const target = req.url ?? "/";
      const q = target.indexOf("?");
      const path = q < 0 ? target : target.slice(0, q);
      const method = req.method ?? "GET";
      res.once("close", () => {
        const durationMs = Math.round((performance.now() - started) * 10) / 10;
        log.info(
          { requestId, method, path, status: res.statusCode, durationMs, door: "libraries" },
          "request",
        );
      });
      const [, ecosystem = "", orgName = ""] = path.split("/", 3);
      const rest = path.slice(ecosystem.length + orgName.length + 2);
      if (!isEcosystem(ecosystem) || !/^[a-z0-9][a-z0-9._-]{0,99}$/i.test(orgName)) {
        sendError(res, "python", new LibraryError(404, `no library repository at ${path}`), method);
        return;
      }
      const r: LibraryRequest = {
        req,
        res,
        method,
        query: new URLSearchParams(q < 0 ? "" : target.slice(q + 1)),
        requestId,
        ecosystem,
        orgName,
        baseUrl: `${registryUrl}/${ecosystem}/${orgName}`,
        rest,
      };
      handlers[ecosystem](ctx, r).catch((err: unknown) => {
        const error = err instanceof LibraryError ? err : internal(err, requestId, log);
        if (!req.readableEnded) req.resume();
        // Refused before its body was read (a form of 100,000 parts): the answer says the
        // connection closes, and the listener reads the rest before closing, so the client,
        // still sending, reads the answer instead of a reset.
        if (!req.complete && req.httpVersionMajor === 1 && !res.headersSent) {
          res.setHeader("connection", "close");
        }
        sendError(res, ecosystem, error, method);
      });
    },
  };
}

/** A store or programming error: logged with the request id, answered 500 without detail. */
function internal(err: unknown, requestId: string, log: Logger): LibraryError {
  const lading = asLadingError(err, requestId, log);
  return new LibraryError(500, lading.message);
}

/**
 * Writes an error in the ecosystem's shape: npm reads `{error}` JSON, pip and Maven text. npm's
 * 401 and 403 also carry the registry's OCI error list, so one parser reads every JSON refusal
 * of the registry listener.
 */
function sendError(res: HttpResponse, ecosystem: Ecosystem, err: LibraryError, method: string) {
  if (res.headersSent) {
    res.destroy?.();
    return;
  }
  const json = ecosystem === "javascript";
  const code = err.status === 401 ? "UNAUTHORIZED" : err.status === 403 ? "DENIED" : undefined;
  const errors = code ? { errors: [{ code, message: err.message }] } : {};
  const body = json ? JSON.stringify({ error: err.message, ...errors }) : `${err.message}\n`;
  res.statusCode = err.status;
  if (err instanceof LibraryUnauthorized) res.setHeader("www-authenticate", err.challenge);
  res.setHeader("content-type", json ? "application/json" : "text/plain; charset=utf-8");
  res.setHeader("content-length", Buffer.byteLength(body));
  if (method === "HEAD") res.end();
  else res.end(body);
}
