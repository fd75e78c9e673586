import {
  artifactUid,
  LibraryError,
  parseFileName,
  publishVersion,
  versionUid,
} from "../../../libraries/index.ts";
import type { LibraryContext, LibraryRequest } from "../library-context.ts";
import { deprecatePackage } from "./npm-deprecate.ts";
import { sendNpmJson } from "./npm-json.ts";
import { tarballName } from "./packument.ts";
import { type OpenAttachment, openAttachment, settle } from "./publish-attachment.ts";
import { readPublishBody } from "./publish-body.ts";
import {
  checkAttachmentName,
  checkDocument,
  declaredHashes,
  onlyVersion,
} from "./publish-document.ts";

/** Largest publish document without the tarball's data: manifest, readme, dist-tags. */
const maxDocumentBytes = 16 * 1024 * 1024;
/** Deepest nesting of a publish document; package.json rarely goes past 5. */
const maxDepth = 32;

/**
 * `npm publish`: `PUT /<name>` with one version's manifest and its tarball as a base64
 * attachment (without one, the PUT is `npm deprecate`'s, see deprecatePackage). The tarball is
 * decoded as it arrives into the blob store (checked against the declared shasum and integrity
 * on the way when the manifest came first, as npm sends it) and through a tar reader for its
 * package.json; the version becomes visible only once every check passed, in one transaction
 * with its dist-tags.
 */
export async function publishPackage(
  ctx: LibraryContext,
  r: LibraryRequest,
  name: string,
): Promise<void> {
  const caller = await ctx.authorize(r, "publish");
  const maxBodyBytes = Math.ceil((ctx.maxFileBytes * 4) / 3) + maxDocumentBytes;
  const declared = Number(r.req.headers["content-length"] ?? "0");
  if (declared > maxBodyBytes) {
    throw new LibraryError(413, `the publish body exceeds ${maxBodyBytes} bytes`);
  }
  const uid = artifactUid("javascript", caller.orgUid, name);
  let versions: unknown;
  let attachment: OpenAttachment | undefined;
  let doc: unknown;
  try {
    // Stopping early must leave the request alone: the door answers and the listener drains
    // the rest, where a destroyed request would reset the connection before the answer.
    const body = r.req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>;
    doc = await readPublishBody(body, {
      maxBodyBytes,
      maxDocumentBytes,
      maxDepth,
      onVersions(value) {
        versions = value;
      },
      async openAttachment(key) {
        if (attachment) throw new LibraryError(400, "a publish carries exactly one attachment");
        // npm names a scoped package's attachment `@scope/name-1.0.0.tgz`: the scope is not
        // part of the stored file name.
        const file = parseFileName(key.startsWith("@") ? key.slice(key.indexOf("/") + 1) : key);
        if (file.error !== undefined) throw new LibraryError(400, `attachment name: ${file.error}`);
        const { version, manifest } = onlyVersion(versions, name, true);
        if (version) {
          checkAttachmentName(key, name, version);
          await refuseExisting(ctx, uid, version);
        }
        attachment = openAttachment(ctx, key, manifest ? declaredHashes(manifest) : {});
        return attachment.sink;
      },
    });
  } catch (error) {
    attachment?.abort(error as Error);
    throw error;
  }
  // A document without a tarball is npm deprecate's: the whole packument, `deprecated` set.
  if (!attachment) return deprecatePackage(ctx, r, caller, name, doc);
  const [stored, facts] = await settle(attachment);
  const checked = checkDocument(doc, name, attachment.key, stored, facts);
  // publishVersion refuses an existing version inside its transaction: no check needed here.
  await publishVersion(ctx.db, {
    orgUid: caller.orgUid,
    ecosystem: "javascript",
    name,
    displayName: name,
    version: checked.version,
    description: checked.description,
    metadata: checked.manifest,
    files: [
      {
        filename: tarballName(name, checked.version),
        stored,
        contentType: "application/octet-stream",
        metadata: { fileCount: facts.fileCount, unpackedSize: facts.unpackedSize },
      },
    ],
    distTags: checked.tags,
    actor: caller.actor,
    source: r.baseUrl,
  }).catch((error: unknown) => {
    if (error instanceof LibraryError && error.status === 409) throw overPublished(checked.version);
    throw error;
  });
  sendNpmJson(r, 201, { ok: true, id: name });
}

function overPublished(version: string): LibraryError {
  return new LibraryError(409, `cannot publish over the previously published version ${version}`);
}

/** Refuses a version that exists before its bytes are stored (publishVersion checks again). */
async function refuseExisting(ctx: LibraryContext, uid: string, version: string): Promise<void> {
  const row = await ctx.db
    .selectFrom("library_versions")
    .select("uid")
    .where("uid", "=", versionUid(uid, version))
    .executeTakeFirst();
  if (row) throw overPublished(version);
}
