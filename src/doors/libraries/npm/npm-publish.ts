import { PassThrough, type Writable } from "node:stream";
import {
  artifactUid,
  ecosystemSchemes,
  LibraryError,
  parseFileName,
  publishVersion,
  type StoredLibraryFile,
  storeLibraryFile,
  versionUid,
} from "../../../libraries/index.ts";
import type { LibraryContext, LibraryRequest } from "../library-context.ts";
import { createBase64Decoder } from "./base64-decoder.ts";
import { parseDistTag } from "./npm-dist-tags.ts";
import { sendNpmJson } from "./npm-json.ts";
import { tarballName } from "./packument.ts";
import { type AttachmentSink, readPublishBody } from "./publish-body.ts";
import { inspectTarball, type TarballFacts } from "./tarball-inspector.ts";

/** Largest publish document without the tarball's data: manifest, readme, dist-tags. */
const maxDocumentBytes = 16 * 1024 * 1024;
/** Deepest nesting of a publish document; package.json rarely goes past 5. */
const maxDepth = 32;
/** Longest description kept from package.json. */
const maxDescription = 2000;

/** An attachment streaming into the blob store and through the tarball inspector. */
interface OpenAttachment {
  key: string;
  sink: AttachmentSink;
  stored: Promise<StoredLibraryFile>;
  facts: Promise<TarballFacts>;
  abort(error: Error): void;
}

/**
 * `npm publish`: `PUT /<name>` with one version's manifest and its tarball as a base64
 * attachment. The tarball is decoded as it arrives into the blob store (checked against the
 * declared shasum and integrity on the way when the manifest came first, as npm sends it) and
 * through a tar reader for its package.json; the version becomes visible only once every check
 * passed, in one transaction with its dist-tags.
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
  if (!attachment) {
    throw new LibraryError(400, "the body has no tarball attachment: only publishing is supported");
  }
  const [stored, facts] = await settle(attachment);
  const checked = checkDocument(doc, name, attachment.key, stored, facts);
  await refuseExisting(ctx, uid, checked.version);
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

/** Refuses a version that exists before its bytes are stored (and again, in the publish). */
async function refuseExisting(ctx: LibraryContext, uid: string, version: string): Promise<void> {
  const row = await ctx.db
    .selectFrom("library_versions")
    .select("uid")
    .where("uid", "=", versionUid(uid, version))
    .executeTakeFirst();
  if (row) throw overPublished(version);
}

/** Starts storing and inspecting one attachment whose base64 text is about to stream in. */
function openAttachment(
  ctx: LibraryContext,
  key: string,
  expected: { sha1?: string; sha512?: string },
): OpenAttachment {
  const decoder = createBase64Decoder();
  const toStore = new PassThrough();
  const toInspect = new PassThrough();
  const stored = storeLibraryFile(ctx.blobs, toStore, { expected, maxBytes: ctx.maxFileBytes });
  const facts = inspectTarball(toInspect, ctx.maxFileBytes * 8);
  // Both are awaited later; until then a failure must not count as unhandled.
  stored.catch(() => {});
  facts.catch(() => {});
  const feed = async (bytes: Buffer) => {
    try {
      await Promise.all([write(toStore, bytes), write(toInspect, bytes)]);
    } catch (error) {
      // A consumer stopped: its own error says why (a digest mismatch, a size limit).
      throw await firstFailure(stored, facts, error as Error);
    }
  };
  return {
    key,
    stored,
    facts,
    sink: {
      async write(text) {
        const bytes = decoder.push(text);
        if (bytes.length > 0) await feed(bytes);
      },
      async end() {
        decoder.end();
        toStore.end();
        toInspect.end();
      },
    },
    abort(error) {
      toStore.destroy(error);
      toInspect.destroy(error);
    },
  };
}

/** Both consumers' results, or the more telling failure. */
async function settle(a: OpenAttachment): Promise<[StoredLibraryFile, TarballFacts]> {
  const [stored, facts] = await Promise.allSettled([a.stored, a.facts]);
  if (facts.status === "rejected") throw facts.reason;
  if (stored.status === "rejected") throw stored.reason;
  return [stored.value, facts.value];
}

async function firstFailure(
  stored: Promise<unknown>,
  facts: Promise<unknown>,
  fallback: Error,
): Promise<Error> {
  const results = await Promise.race([
    Promise.allSettled([stored, facts]),
    new Promise<undefined>((resolve) => setTimeout(resolve, 1000, undefined)),
  ]);
  const failed = results?.find((x) => x.status === "rejected");
  return failed ? (failed.reason as Error) : fallback;
}

/** Writes with backpressure; rejects when the stream is destroyed instead of draining. */
function write(stream: Writable, bytes: Buffer): Promise<void> {
  if (stream.destroyed) return Promise.reject(new Error("stream closed"));
  if (stream.write(bytes)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      stream.off("drain", drained);
      stream.off("close", closed);
      if (error) reject(error);
      else resolve();
    };
    const drained = () => done();
    const closed = () => done(new Error("stream closed"));
    stream.once("drain", drained);
    stream.once("close", closed);
  });
}

/** The hex digests a manifest's `dist` declares. */
function declaredHashes(manifest: Record<string, unknown>): { sha1?: string; sha512?: string } {
  const dist = manifest.dist as { shasum?: unknown; integrity?: unknown } | undefined;
  const out: { sha1?: string; sha512?: string } = {};
  if (typeof dist?.shasum === "string") out.sha1 = dist.shasum.toLowerCase();
  if (typeof dist?.integrity === "string") {
    for (const part of dist.integrity.split(/\s+/)) {
      if (part.startsWith("sha512-")) {
        out.sha512 = Buffer.from(part.slice(7).split("?")[0], "base64").toString("hex");
      }
    }
  }
  return out;
}

/** The body's only version and its manifest; with `lenient`, nothing when not yet known. */
function onlyVersion(
  versions: unknown,
  name: string,
  lenient = false,
): { version?: string; manifest?: Record<string, unknown> } {
  if (versions === undefined && lenient) return {};
  if (!isObject(versions)) throw new LibraryError(400, "versions must be an object");
  const keys = Object.keys(versions);
  if (keys.length !== 1) {
    throw new LibraryError(400, `a publish carries exactly one version, not ${keys.length}`);
  }
  const version = keys[0];
  if (!ecosystemSchemes.javascript.isValid(version)) {
    throw new LibraryError(400, `version "${version}" is not a semantic version`);
  }
  const manifest = versions[version];
  if (!isObject(manifest)) throw new LibraryError(400, `versions["${version}"] is not an object`);
  if (manifest.name !== name || manifest.version !== version) {
    throw new LibraryError(
      400,
      `the manifest names ${String(manifest.name)}@${String(manifest.version)}, not ${name}@${version}`,
    );
  }
  return { version, manifest };
}

/** Checks the document against the URL and the stored tarball; what to publish. */
function checkDocument(
  doc: unknown,
  name: string,
  key: string,
  stored: StoredLibraryFile,
  facts: TarballFacts,
) {
  if (!isObject(doc)) throw new LibraryError(400, "the body is not a JSON object");
  if (doc.name !== name || (doc._id !== undefined && doc._id !== name)) {
    throw new LibraryError(400, `the document names ${String(doc.name)}, not ${name}`);
  }
  const { version = "", manifest = {} } = onlyVersion(doc.versions, name);
  checkAttachmentName(key, name, version);
  const attachments = doc._attachments as Record<string, Record<string, unknown>>;
  if (Object.keys(attachments).length !== 1) {
    throw new LibraryError(400, "a publish carries exactly one attachment");
  }
  const length = attachments[key]?.length;
  if (length !== undefined && length !== stored.size) {
    throw new LibraryError(
      400,
      `the attachment is ${stored.size} bytes, not the declared ${length}`,
    );
  }
  const declared = declaredHashes(manifest);
  if (
    (declared.sha1 && declared.sha1 !== stored.sha1) ||
    (declared.sha512 && declared.sha512 !== stored.sha512)
  ) {
    throw new LibraryError(400, "dist.shasum or dist.integrity does not match the tarball");
  }
  const pkg = facts.packageJson;
  if (pkg.name !== name || pkg.version !== version) {
    throw new LibraryError(
      400,
      `the tarball's package.json names ${String(pkg.name)}@${String(pkg.version)}, not ${name}@${version}`,
    );
  }
  const tags = distTagsOf(doc["dist-tags"], version);
  const description =
    typeof pkg.description === "string" ? pkg.description.slice(0, maxDescription) : "";
  return { version, manifest: keptManifest(manifest), tags, description };
}

/** npm names the attachment `<name>-<version>.tgz`, the scope included. */
function checkAttachmentName(key: string, name: string, version: string): void {
  const file = tarballName(name, version);
  if (key !== file && key !== `${name}-${version}.tgz`) {
    throw new LibraryError(400, `the attachment of ${name}@${version} must be named ${file}`);
  }
}

/** The tags a publish sets: each must name the published version; `latest` when none. */
function distTagsOf(value: unknown, version: string): string[] {
  if (value === undefined) return ["latest"];
  if (!isObject(value)) throw new LibraryError(400, "dist-tags must be an object");
  const tags = Object.keys(value);
  for (const tag of tags) {
    const parsed = parseDistTag(tag);
    if (parsed.error !== undefined) throw new LibraryError(400, parsed.error);
    if (value[tag] !== version) {
      throw new LibraryError(400, `dist-tag ${tag} must point at the published version ${version}`);
    }
  }
  return tags.length > 0 ? tags : ["latest"];
}

/**
 * The manifest as stored: what the publisher wrote, without `dist` (rebuilt from the stored
 * file), the readme (large, and not needed to install) and npm's private fields other than the
 * ones the public registry keeps.
 */
function keptManifest(manifest: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  const privateKept = new Set(["_hasShrinkwrap", "_nodeVersion", "_npmVersion"]);
  for (const [field, value] of Object.entries(manifest)) {
    if (field === "dist" || field === "readme" || field === "readmeFilename") continue;
    if (field.startsWith("_") && !privateKept.has(field)) continue;
    kept[field] = value;
  }
  return kept;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
