import { LibraryError } from "../../../libraries/index.ts";
import type { LibraryContext, LibraryRequest } from "../library-context.ts";
import { methodNotAllowed, serveDistTags } from "./npm-dist-tags.ts";
import { sendNpmJson } from "./npm-json.ts";
import { parseNpmName, splitPackagePath } from "./npm-name.ts";
import { servePackument, serveTarball } from "./npm-packument-route.ts";
import { publishPackage } from "./npm-publish.ts";
import { createPackumentCache, type PackumentCache } from "./packument-cache.ts";

/** One packument cache per door (the context is created once per server). */
const caches = new WeakMap<LibraryContext, PackumentCache>();

/**
 * Serves the npm registry protocol under `/javascript/<org>/`: packuments, tarballs,
 * `npm publish`, `npm deprecate`, dist-tags, `npm whoami` and `npm ping`. Anything else npm
 * may ask for (search, audit, unpublish, owners) is answered with a JSON 404 or 405 naming it.
 */
export async function serveNpm(ctx: LibraryContext, r: LibraryRequest): Promise<void> {
  let cache = caches.get(ctx);
  if (!cache) {
    cache = createPackumentCache();
    caches.set(ctx, cache);
  }
  const read = r.method === "GET" || r.method === "HEAD";
  if (r.rest === "/-/ping") {
    if (!read) throw methodNotAllowed(r.method);
    sendNpmJson(r, 200, {});
    return;
  }
  if (r.rest === "/-/whoami") {
    if (!read) throw methodNotAllowed(r.method);
    const caller = await ctx.authorize(r, "read");
    if (caller.actor.subject === "") throw new LibraryError(401, "not signed in");
    sendNpmJson(r, 200, { username: caller.actor.subject });
    return;
  }
  if (r.rest.startsWith("/-/package/")) {
    const path = splitPackagePath(r.rest.slice("/-/package".length));
    if ("error" in path) throw new LibraryError(400, path.error);
    const name = checkedName(path.name);
    if (path.tail[0] !== "dist-tags" || path.tail.length > 2) throw notServed(r);
    await serveDistTags(ctx, r, name, path.tail[1]);
    return;
  }
  if (r.rest.startsWith("/-/") || r.rest === "/" || r.rest === "") throw notServed(r);
  const path = splitPackagePath(r.rest);
  if ("error" in path) throw new LibraryError(400, path.error);
  const name = checkedName(path.name);
  if (path.tail.length === 0) {
    if (read) await servePackument(ctx, cache, r, name);
    else if (r.method === "PUT") await publishPackage(ctx, r, name);
    else throw methodNotAllowed(r.method);
    return;
  }
  if (path.tail.length === 2 && path.tail[0] === "-") {
    if (!read) throw methodNotAllowed(r.method);
    await serveTarball(ctx, r, name, path.tail[1]);
    return;
  }
  if (path.tail[0] === "-rev") {
    throw new LibraryError(405, "unpublishing is not supported by Lading");
  }
  throw notServed(r);
}

function checkedName(text: string): string {
  const name = parseNpmName(text);
  if (name.value === undefined) throw new LibraryError(400, name.error ?? "bad package name");
  return name.value;
}

function notServed(r: LibraryRequest): LibraryError {
  return new LibraryError(404, `Lading's npm registry does not serve ${r.method} ${r.rest}`);
}
