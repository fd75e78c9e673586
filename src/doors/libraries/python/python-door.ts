import type { Kysely } from "kysely";
import {
  artifactUid,
  LibraryError,
  normalizePythonName,
  versionUid,
} from "../../../libraries/index.ts";
import type { MetadataSchema } from "../../../store/metadata/index.ts";
import { sendStream } from "../../oci/oci-context.ts";
import type { LibraryCaller, LibraryContext, LibraryRequest } from "../library-context.ts";
import { uploadPython } from "./python-upload.ts";
import { indexHtml, indexJson, negotiateSimple, simpleJson } from "./simple-format.ts";
import { createSimplePages, type PageBody, pageBody } from "./simple-pages.ts";

/** The project page cache of each server (keyed by its database handle). */
const pagesOf = new WeakMap<Kysely<MetadataSchema>, ReturnType<typeof createSimplePages>>();

/**
 * Serves a Python repository under `/python/<org>/`: the Simple API (`simple/`, PEP 503 HTML
 * and PEP 691 JSON), file downloads (`files/<project>/<version>/<file>`) and `twine upload`
 * (POST to the root or `legacy/`).
 */
export async function servePython(ctx: LibraryContext, r: LibraryRequest): Promise<void> {
  const segments = r.rest.split("/").slice(1);
  const read = r.method === "GET" || r.method === "HEAD";
  const [first = "", ...more] = segments;
  if (r.rest === "" || r.rest === "/" || (first === "legacy" && more.join("") === "")) {
    if (r.method !== "POST") throw methodNotAllowed(r, "POST");
    await uploadPython(ctx, r, await ctx.authorize(r, "publish"));
    return;
  }
  if (first === "simple" || first === "files") {
    if (!read) throw methodNotAllowed(r, "GET, HEAD");
    const caller = await ctx.authorize(r, "read");
    const decoded = segments.map(decodeSegment);
    if (first === "simple") {
      if (segments.length === 1) return redirect(r, "simple/");
      if (segments.length === 2 && segments[1] === "") return serveIndex(ctx, r, caller);
      if (segments.length === 2 || (segments.length === 3 && segments[2] === "")) {
        return serveProject(ctx, r, caller, decoded[1] ?? "");
      }
    } else if (segments.length === 4 && decoded.every((s) => s !== undefined && s !== "")) {
      return serveFile(ctx, r, caller, decoded as string[]);
    }
  }
  throw new LibraryError(404, `no endpoint ${r.method} ${r.rest}`);
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function methodNotAllowed(r: LibraryRequest, allow: string): LibraryError {
  r.res.setHeader("allow", allow);
  return new LibraryError(405, `${r.method} is not allowed on ${r.rest || "/"}`);
}

/** A permanent redirect within the repository (a path, so it holds behind any host name). */
function redirect(r: LibraryRequest, path: string): void {
  r.res.statusCode = 301;
  r.res.setHeader("location", `/${r.ecosystem}/${r.orgName}/${path}`);
  r.res.setHeader("content-length", 0);
  r.res.end();
}

/**
 * Sends a Simple API page in the negotiated format, gzipped when the client accepts it, or 304
 * when the client has it.
 */
function sendPage(r: LibraryRequest, type: string, page: PageBody, etag?: string): void {
  const { res } = r;
  const gzipped = acceptsGzip(r.req.headers["accept-encoding"]);
  const body = gzipped ? page.gzip : page.plain;
  res.setHeader("content-type", type === simpleJson ? type : `${type}; charset=utf-8`);
  res.setHeader("vary", "Accept, Accept-Encoding, Authorization");
  res.setHeader("cache-control", "max-age=0, must-revalidate");
  if (etag) {
    const tagged = gzipped ? `${etag.slice(0, -1)}-gz"` : etag;
    res.setHeader("etag", tagged);
    if (r.req.headers["if-none-match"] === tagged) {
      res.statusCode = 304;
      res.end();
      return;
    }
  }
  res.statusCode = 200;
  if (gzipped) res.setHeader("content-encoding", "gzip");
  res.setHeader("content-length", body.length);
  if (r.method === "HEAD") res.end();
  else res.end(body);
}

/** Whether an Accept-Encoding header admits gzip (`gzip` or `*`, without q=0). */
function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(",", 32).some((item) => {
    const [coding = "", ...params] = item.split(";");
    const name = coding.trim().toLowerCase();
    if (name !== "gzip" && name !== "*") return false;
    return !params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/i.test(p));
  });
}

function negotiate(r: LibraryRequest) {
  const type = negotiateSimple(r.req.headers.accept);
  if (!type) {
    throw new LibraryError(
      406,
      "acceptable types: application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html, text/html",
    );
  }
  return type;
}

/** The organisation's project list. */
async function serveIndex(ctx: LibraryContext, r: LibraryRequest, caller: LibraryCaller) {
  const type = negotiate(r);
  const rows = await ctx.db
    .selectFrom("library_artifacts")
    .select(["name", "display_name"])
    .where("parent_uid", "=", caller.orgUid)
    .where("ecosystem", "=", "python")
    .orderBy("name")
    .execute();
  const projects = rows.map((row): [string, string] => [row.name, row.display_name]);
  const body = type === simpleJson ? indexJson(projects) : indexHtml(projects);
  sendPage(r, type, await pageBody(body));
}

/** One project's files; a name not in PEP 503 normal form redirects to the one that is. */
async function serveProject(
  ctx: LibraryContext,
  r: LibraryRequest,
  caller: LibraryCaller,
  name: string,
) {
  const project = normalizePythonName(name);
  if (project !== name || !r.rest.endsWith("/")) {
    if (project === "" || project.length > 200) throw new LibraryError(404, "no such project");
    return redirect(r, `simple/${encodeURIComponent(project)}/`);
  }
  const type = negotiate(r);
  let pages = pagesOf.get(ctx.db);
  if (!pages) {
    pages = createSimplePages(ctx.db);
    pagesOf.set(ctx.db, pages);
  }
  const page = await pages(caller.orgUid, project);
  if (!page) throw new LibraryError(404, `no project ${project} in ${r.orgName}`);
  const etag = `${page.etag.slice(0, -1)}-${type === simpleJson ? "j" : "h"}"`;
  sendPage(r, type, type === simpleJson ? page.json : page.html, etag);
}

/** A distribution file, streamed from the blob store; files never change, so caches keep them. */
async function serveFile(
  ctx: LibraryContext,
  r: LibraryRequest,
  caller: LibraryCaller,
  [, project, version, filename]: string[],
) {
  const uid = artifactUid("python", caller.orgUid, normalizePythonName(project));
  const row = await ctx.db
    .selectFrom("library_files")
    .select(["digest", "size", "version_uid", "content_type"])
    .where("artifact_uid", "=", uid)
    .where("filename", "=", filename)
    .executeTakeFirst();
  if (!row || row.version_uid !== versionUid(uid, version)) {
    throw new LibraryError(404, `no file ${filename} in ${project} ${version}`);
  }
  const etag = `"${row.digest}"`;
  const scope = r.req.headers.authorization ? "private" : "public";
  const headers = {
    "content-type": row.content_type,
    etag,
    "cache-control": `${scope}, max-age=31536000, immutable`,
  };
  if (r.req.headers["if-none-match"] === etag) return sendStream(r.res, 304, headers, undefined);
  const all = { ...headers, "content-length": Number(row.size) };
  if (r.method === "HEAD") return sendStream(r.res, 200, all, undefined);
  await sendStream(r.res, 200, all, await ctx.blobs.get(row.digest));
}
