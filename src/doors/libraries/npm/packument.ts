import type { Kysely } from "kysely";
import { deprecationOf } from "../../../libraries/index.ts";
import type { MetadataSchema } from "../../../store/metadata/index.ts";
import { unscopedName } from "./npm-name.ts";

/** The artifact columns a packument is built from (and cached by). */
export interface PackumentArtifact {
  uid: string;
  name: string;
  description: string;
  dist_tags: string;
  version_count: number;
  create_time: string;
  update_time: string;
}

/** Both forms of a package document, encoded. */
export interface Packuments {
  /** `application/json`: everything `npm view` shows. */
  full: Buffer;
  /** `application/vnd.npm.install-v1+json`: only what an install needs. */
  abbreviated: Buffer;
}

/** Fields of a version an install needs (npm's abbreviated metadata format). */
const installFields = [
  "name",
  "version",
  "deprecated",
  "dependencies",
  "optionalDependencies",
  "devDependencies",
  "bundleDependencies",
  "peerDependencies",
  "peerDependenciesMeta",
  "acceptDependencies",
  "bin",
  "directories",
  "engines",
  "cpu",
  "os",
  "libc",
  "funding",
  "_hasShrinkwrap",
  "hasInstallScript",
] as const;

/**
 * Reads the artifact's versions and files and encodes both packument forms. Tarball URLs are
 * absolute, under `baseUrl` (the configured registry URL, so the bytes can be cached for
 * every caller); `dist` is rebuilt from the stored files, never taken from the publisher.
 */
export async function buildPackuments(
  db: Kysely<MetadataSchema>,
  artifact: PackumentArtifact,
  baseUrl: string,
): Promise<Packuments> {
  const rows = await db
    .selectFrom("library_versions as v")
    .innerJoin("library_files as f", "f.version_uid", "v.uid")
    .select([
      "v.version",
      "v.metadata",
      "v.deprecated",
      "v.create_time",
      "f.filename",
      "f.sha1",
      "f.sha512",
      "f.metadata as file_metadata",
    ])
    .where("v.artifact_uid", "=", artifact.uid)
    .orderBy("v.version_rank")
    .execute();
  const name = artifact.name;
  const full: Record<string, unknown> = {};
  const abbreviated: Record<string, unknown> = {};
  const time: Record<string, string> = {
    created: artifact.create_time,
    modified: artifact.update_time,
  };
  for (const row of rows) {
    const manifest = JSON.parse(row.metadata) as Record<string, unknown>;
    const facts = JSON.parse(row.file_metadata) as { fileCount?: number; unpackedSize?: number };
    const dist = {
      tarball: `${baseUrl}/${name}/-/${row.filename}`,
      shasum: row.sha1,
      integrity: `sha512-${Buffer.from(row.sha512, "hex").toString("base64")}`,
      fileCount: facts.fileCount,
      unpackedSize: facts.unpackedSize,
    };
    const version: Record<string, unknown> = {
      ...manifest,
      name,
      version: row.version,
      _id: `${name}@${row.version}`,
    };
    // npm deprecate's message, or the one the version was published with until one is set.
    const deprecated = deprecationOf(row);
    if (deprecated) version.deprecated = deprecated;
    else delete version.deprecated;
    full[row.version] = { ...version, dist };
    const install: Record<string, unknown> = { dist };
    for (const field of installFields) {
      if (version[field] !== undefined) install[field] = version[field];
    }
    if (install.hasInstallScript === undefined && hasInstallScript(manifest.scripts)) {
      install.hasInstallScript = true;
    }
    abbreviated[row.version] = install;
    time[row.version] = row.create_time;
  }
  const distTags = JSON.parse(artifact.dist_tags) as Record<string, string>;
  return {
    full: Buffer.from(
      JSON.stringify({
        _id: name,
        name,
        description: artifact.description,
        "dist-tags": distTags,
        versions: full,
        time,
      }),
    ),
    abbreviated: Buffer.from(
      JSON.stringify({
        name,
        modified: artifact.update_time,
        "dist-tags": distTags,
        versions: abbreviated,
      }),
    ),
  };
}

/** npm marks versions whose install runs scripts, so installers can warn before fetching. */
function hasInstallScript(scripts: unknown): boolean {
  if (typeof scripts !== "object" || scripts === null) return false;
  const s = scripts as Record<string, unknown>;
  return ["preinstall", "install", "postinstall"].some((k) => typeof s[k] === "string");
}

/** The file name npm gives a version's tarball: `<last part of the name>-<version>.tgz`. */
export function tarballName(name: string, version: string): string {
  return `${unscopedName(name)}-${version}.tgz`;
}
