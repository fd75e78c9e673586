import { basename } from "node:path";
import {
  inspectTarball,
  packageDescription,
  parseNpmName,
  storedManifest,
  tarballName,
} from "../doors/libraries/index.ts";
import {
  artifactUid,
  ecosystemSchemes,
  LibraryError,
  parseFileName,
  publishVersion,
} from "../libraries/index.ts";
import {
  comparePublished,
  type FileOutcome,
  type LibraryImportContext,
  type MirrorFile,
  publishOutcome,
  readMirrorFile,
  refused,
  repositoryUrl,
  storeMirrorFile,
} from "./library-import-file.ts";

const isPrerelease = (version: string) => version.split("+", 1)[0].includes("-");

/**
 * Whether an imported version takes the `latest` dist-tag: when the package has none, or when
 * it is a release above the tagged version (or the tagged version is a prerelease). The result
 * is the highest release whatever order the files come in, and a tag pointing at a higher
 * version (an operator's choice, or a publish) is left alone.
 */
export function takesLatest(version: string, latest: string | undefined): boolean {
  if (latest === undefined) return true;
  if (isPrerelease(version)) return false;
  if (isPrerelease(latest)) return true;
  const order = ecosystemSchemes.javascript.compareText(latest, version);
  return order.value !== undefined && order.value < 0;
}

/**
 * Imports an npm tarball with the checks `npm publish` gets: a gzip tar with a
 * `package/package.json` naming a valid package and semantic version, which must be the ones
 * the file name gives (`<name>-<version>.tgz`, or `npm pack`'s `<scope>-<name>-<version>.tgz`).
 * The manifest is package.json, kept as a publish's is.
 */
export async function importNpmFile(
  ctx: LibraryImportContext,
  file: MirrorFile,
): Promise<FileOutcome> {
  const filename = basename(file.relative);
  if (!filename.endsWith(".tgz")) return { kind: "skipped", reason: "not an npm tarball (.tgz)" };
  const checkedName = parseFileName(filename);
  if (checkedName.error !== undefined) return refused(checkedName.error);
  let pkg: Record<string, unknown>;
  let facts: { fileCount: number; unpackedSize: number };
  try {
    ({ packageJson: pkg, ...facts } = await inspectTarball(
      await readMirrorFile(file.path),
      ctx.maxFileBytes * 8,
    ));
  } catch (error) {
    if (error instanceof LibraryError) return refused(error.message.replace("attachment", "file"));
    throw error;
  }
  const name = parseNpmName(typeof pkg.name === "string" ? pkg.name : "");
  if (name.value === undefined) return refused(`package.json: ${name.error}`);
  const version = typeof pkg.version === "string" ? pkg.version : "";
  if (!ecosystemSchemes.javascript.isValid(version)) {
    return refused(`package.json: version "${version}" is not a semantic version`);
  }
  const stored_name = tarballName(name.value, version);
  const packed = `${name.value.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
  if (filename !== stored_name && filename !== packed) {
    return refused(
      `package.json names ${name.value}@${version}, but the file name is not ${stored_name}`,
    );
  }
  let manifest: Record<string, unknown>;
  try {
    manifest = storedManifest(pkg);
  } catch (error) {
    if (error instanceof LibraryError) return refused(error.message);
    throw error;
  }
  const uid = artifactUid("javascript", ctx.orgUid, name.value);
  const published = await comparePublished(ctx, file, uid, stored_name);
  if (published) return published;
  const stored = await storeMirrorFile(ctx, file);
  const artifact = await ctx.db
    .selectFrom("library_artifacts")
    .select("dist_tags")
    .where("uid", "=", uid)
    .executeTakeFirst();
  const tags = JSON.parse(artifact?.dist_tags ?? "{}") as Record<string, string>;
  return publishOutcome(uid, () =>
    publishVersion(ctx.db, {
      orgUid: ctx.orgUid,
      ecosystem: "javascript",
      name: name.value ?? "",
      displayName: name.value ?? "",
      version,
      description: packageDescription(pkg),
      metadata: manifest,
      files: [
        {
          filename: stored_name,
          stored,
          contentType: "application/octet-stream",
          metadata: facts,
        },
      ],
      distTags: takesLatest(version, tags.latest) ? ["latest"] : [],
      actor: ctx.actor,
      source: repositoryUrl(ctx, "javascript"),
    }),
  );
}
