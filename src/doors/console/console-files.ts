import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { HttpRequest, HttpResponse } from "../../rpc/index.ts";

/**
 * The Content-Security-Policy of every console answer: nothing inline, nothing from elsewhere,
 * never framed (docs/console.md).
 */
export const consoleCsp = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

/** Where `npm install` builds the console: `console/dist` of the Lading package. */
export const defaultConsoleDir = fileURLToPath(new URL("../../../console/dist", import.meta.url));

/** What the console's files are served from. */
export interface ConsoleFilesOptions {
  /** The built console (index.html and assets/). Default {@link defaultConsoleDir}. */
  dir?: string;
  /**
   * The registry's host, written into index.html's `<meta name="lading-registry">` so the
   * console can show pinned references (`<registry>/<org>/<image>@<digest>`). Default: none.
   */
  registryHost?: string;
}

/** The API listener's console: static files and the client-side routes. */
export interface ConsoleFiles {
  /**
   * Answers a GET or HEAD that no API endpoint matched and returns true, or returns false,
   * writing nothing, when the request is not the console's: `/`, a file of the build, or a
   * client-side route asked for by a browser (an `Accept` naming text/html). Anything else
   * keeps the API's JSON 404, so API clients never get a page.
   */
  handle(req: HttpRequest, res: HttpResponse, path: string): Promise<boolean>;
}

const types: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".woff2": "font/woff2",
};

/** A path segment of a file the build may have: no dot-files, no `..`, no encoded bytes. */
const segment = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;
/** Vite names every asset `<name>-<hash>.<ext>`: those never change and are cached for a year. */
const hashed = /^\/assets\//;

const notBuilt =
  "Lading's console is not built. Run `npm install` (or `npm run build:console`) in the Lading " +
  "folder and restart `lading serve`. The API is served as usual.\n";

interface CachedFile {
  body: Buffer;
  etag: string;
  mtimeMs: number;
}

/** Creates the console's file server over the build in `options.dir`. */
export function createConsoleFiles(options: ConsoleFilesOptions = {}): ConsoleFiles {
  const dir = options.dir ?? defaultConsoleDir;
  const cache = new Map<string, CachedFile>();

  /** The file at `rel` (checked segments only), or undefined; re-read when it changed. */
  async function load(rel: string): Promise<CachedFile | undefined> {
    const parts = rel.split("/").filter((p) => p !== "");
    if (parts.length === 0 || parts.length > 4 || !parts.every((p) => segment.test(p))) {
      return undefined;
    }
    const file = join(dir, ...parts);
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    const hit = cache.get(file);
    if (hit && hit.mtimeMs === info.mtimeMs) return hit;
    let body = await readFile(file);
    if (rel === "index.html" && options.registryHost) {
      const text = body
        .toString("utf8")
        .replace(
          '<meta name="lading-registry" content="" />',
          `<meta name="lading-registry" content="${escapeAttribute(options.registryHost)}" />`,
        );
      body = Buffer.from(text, "utf8");
    }
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
    const entry = { body, etag, mtimeMs: info.mtimeMs };
    if (cache.size > 512) cache.clear();
    cache.set(file, entry);
    return entry;
  }

  function send(
    req: HttpRequest,
    res: HttpResponse,
    file: CachedFile,
    type: string,
    cacheControl: string,
  ): void {
    secure(res);
    res.setHeader("cache-control", cacheControl);
    res.setHeader("etag", file.etag);
    if (req.headers["if-none-match"] === file.etag) {
      res.statusCode = 304;
      res.end();
      return;
    }
    res.statusCode = 200;
    res.setHeader("content-type", type);
    res.setHeader("content-length", file.body.length);
    if (req.method === "HEAD") res.end();
    else res.end(file.body);
  }

  return {
    async handle(req, res, path) {
      if (req.method !== "GET" && req.method !== "HEAD") return false;
      let decoded: string;
      try {
        decoded = decodeURIComponent(path);
      } catch {
        return false;
      }
      // A name with a file extension the build uses is a file: served when the build has it,
      // else the API's 404. Any other path is a page (repository names and digests hold dots).
      if (types[extname(decoded)] !== undefined) {
        const file = await load(decoded);
        if (!file) return false;
        const type = types[extname(decoded)] ?? "application/octet-stream";
        const cacheControl = hashed.test(decoded)
          ? "public, max-age=31536000, immutable"
          : "public, max-age=3600";
        send(req, res, file, type, cacheControl);
        return true;
      }
      const accept = String(req.headers.accept ?? "");
      if (path !== "/" && !accept.includes("text/html")) return false;
      const index = await load("index.html");
      if (!index) {
        secure(res);
        res.statusCode = 404;
        res.setHeader("content-type", "text/plain; charset=utf-8");
        res.setHeader("cache-control", "no-store");
        if (req.method === "HEAD") res.end();
        else res.end(notBuilt);
        return true;
      }
      // Always revalidated, so a new build is picked up at the next page load.
      send(req, res, index, types[".html"], "no-cache");
      return true;
    },
  };
}

function secure(res: HttpResponse): void {
  res.setHeader("content-security-policy", consoleCsp);
  res.setHeader("x-content-type-options", "nosniff");
  res.setHeader("x-frame-options", "DENY");
  res.setHeader("referrer-policy", "no-referrer");
  res.setHeader("cross-origin-opener-policy", "same-origin");
}

function escapeAttribute(text: string): string {
  return text.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
}
