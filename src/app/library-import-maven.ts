import { basename } from "node:path";
import {
  isSnapshot,
  maxPomPrefix,
  parseMavenPath,
  pomDescription,
  publishMavenFile,
} from "../doors/libraries/index.ts";
import { artifactUid } from "../libraries/index.ts";
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

const checksums = ["sha1", "md5", "sha256", "sha512"] as const;

/**
 * Files of a Maven repository that are not artifacts: checksums (verified against their file
 * instead), metadata (the repository generates its own) and a local repository's bookkeeping.
 */
export function isMavenBookkeeping(filename: string): boolean {
  return (
    checksums.some((a) => filename.endsWith(`.${a}`)) ||
    /^maven-metadata(-[^/]*)?\.xml$/.test(filename) ||
    filename === "_remote.repositories" ||
    filename === "_maven.repositories" ||
    filename === "resolver-status.properties" ||
    filename.endsWith(".lastUpdated")
  );
}

/** Reads at most `max` bytes from the start of a file. */
async function readPrefix(path: string, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await readMirrorFile(path, max - 1)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The digests the file's checksum siblings (`x.jar.sha1`, …) declare, where they exist. */
async function siblingChecksums(
  path: string,
): Promise<Partial<Record<(typeof checksums)[number], string>>> {
  const expected: Partial<Record<(typeof checksums)[number], string>> = {};
  for (const algorithm of checksums) {
    const text = await readPrefix(`${path}.${algorithm}`, 1024).catch(() => undefined);
    const declared = text?.toString("utf8").trim().split(/\s/, 1)[0].toLowerCase();
    if (declared && /^[0-9a-f]{32,128}$/.test(declared)) expected[algorithm] = declared;
  }
  return expected;
}

/**
 * Imports a file of a Maven repository layout (`<group path>/<artifactId>/<version>/<file>`)
 * with the checks a `mvn deploy` PUT gets: the path parses as the repository's, releases
 * only. A checksum file next to it (as Maven writes them) must match, else the file is refused.
 */
export async function importMavenFile(
  ctx: LibraryImportContext,
  file: MirrorFile,
  /** The path under the folder's `java/`. */
  layoutPath: string,
): Promise<FileOutcome> {
  if (isMavenBookkeeping(basename(layoutPath))) {
    return { kind: "ignored" };
  }
  const rest = `/${layoutPath.split("/").map(encodeURIComponent).join("/")}`;
  const parsed = parseMavenPath(rest);
  if (parsed.value === undefined) return refused(parsed.error ?? "not a Maven repository path");
  const path = parsed.value;
  if (path.kind !== "file" || path.checksum) {
    return { kind: "ignored" };
  }
  if (isSnapshot(path.version)) {
    return {
      kind: "skipped",
      reason: `${path.version} is a SNAPSHOT: the repository holds releases only`,
    };
  }
  const uid = artifactUid("java", ctx.orgUid, `${path.groupId}:${path.artifactId}`);
  const published = await comparePublished(ctx, file, uid, path.filename);
  if (published) return published;
  const stored = await storeMirrorFile(ctx, file, await siblingChecksums(file.path));
  const description = path.filename.endsWith(".pom")
    ? pomDescription((await readPrefix(file.path, maxPomPrefix)).toString("utf8"))
    : "";
  return publishOutcome(uid, () =>
    publishMavenFile(ctx.db, {
      orgUid: ctx.orgUid,
      path,
      stored,
      description,
      actor: ctx.actor,
      source: repositoryUrl(ctx, "java"),
    }),
  );
}
