import { deprecateVersions, LibraryError } from "../../../libraries/index.ts";
import type { LibraryCaller, LibraryContext, LibraryRequest } from "../library-context.ts";
import { sendNpmJson } from "./npm-json.ts";
import { isObject } from "./publish-document.ts";

/**
 * `npm deprecate <name>@<range> <message>` (and `npm undeprecate`, or an empty message): npm
 * GETs the packument, sets `deprecated` on the versions in the range and PUTs the whole document
 * back without an attachment. Only `versions.<v>.deprecated` is read: a non-empty string
 * deprecates the version, `""`, `null` or no field lifts it; every version named must be
 * published; versions left out and every other field (dist-tags, descriptions, maintainers)
 * change nothing, so a document that lost a version never unpublishes it.
 */
export async function deprecatePackage(
  ctx: LibraryContext,
  r: LibraryRequest,
  caller: LibraryCaller,
  name: string,
  doc: unknown,
): Promise<void> {
  if (!isObject(doc)) throw new LibraryError(400, "the body is not a JSON object");
  if (doc.name !== name || (doc._id !== undefined && doc._id !== name)) {
    throw new LibraryError(400, `the document names ${String(doc.name)}, not ${name}`);
  }
  const versions = doc.versions;
  if (!isObject(versions) || Object.keys(versions).length === 0) {
    throw new LibraryError(
      400,
      "the body has no tarball attachment and no versions: a PUT publishes or deprecates",
    );
  }
  const messages = new Map<string, string>();
  for (const [version, manifest] of Object.entries(versions)) {
    if (!isObject(manifest)) throw new LibraryError(400, `versions["${version}"] is not an object`);
    const deprecated = manifest.deprecated ?? "";
    if (typeof deprecated !== "string") {
      throw new LibraryError(400, `versions["${version}"].deprecated must be a string`);
    }
    messages.set(version, deprecated);
  }
  await deprecateVersions(ctx.db, {
    orgUid: caller.orgUid,
    ecosystem: "javascript",
    name,
    displayName: name,
    messages,
    actor: caller.actor,
    source: r.baseUrl,
  });
  sendNpmJson(r, 200, { ok: true, id: name });
}
