import { basename, dirname } from "node:path";
import { type Ecosystem, ecosystems, LibraryError } from "../libraries/index.ts";
import type { FileOutcome, LibraryImportContext, MirrorFile } from "./library-import-file.ts";
import { importMavenFile } from "./library-import-maven.ts";
import { importNpmFile } from "./library-import-npm.ts";
import { importPythonFile, pythonFileKind } from "./library-import-python.ts";
import { walkMirror } from "./library-mirror.ts";

export type { LibraryImportContext } from "./library-import-file.ts";

/** One ecosystem's counts. */
export interface EcosystemImportCounts {
  /** Artifacts the folder holds files of (new or not). */
  artifacts: number;
  versionsCreated: number;
  filesCreated: number;
  filesUnchanged: number;
  filesConflicting: number;
  filesRefused: number;
}

/** A file that was not imported, and why. */
export interface ImportProblem {
  path: string;
  outcome: "refused" | "conflict" | "skipped";
  reason: string;
}

/** What an import did. */
export interface LibraryImportSummary {
  ecosystems: Record<Ecosystem, EcosystemImportCounts>;
  /** Files that are no library file (outside the three folders, other suffixes, snapshots). */
  skipped: number;
  /** Maven checksums, metadata and local-repository bookkeeping. */
  ignored: number;
  /** Refused files, symlinks included: the command fails when this is not 0. */
  refused: number;
  problems: ImportProblem[];
}

/** Where an import is. */
export interface LibraryImportProgress {
  files: number;
  totalFiles: number;
  bytes: number;
  totalBytes: number;
}

/** The order files are imported in: each ecosystem's first file of a version carries it. */
function importOrder(file: MirrorFile): string {
  const name = basename(file.relative);
  // A wheel's METADATA gives the version its summary; an sdist's file name gives none.
  if (file.ecosystem === "python") return `0|${pythonFileKind(name) === "wheel" ? 0 : 1}|${name}`;
  if (file.ecosystem === "javascript") return `1|${file.relative}`;
  // The pom gives a Maven version its description: first in its folder.
  return `2|${dirname(file.relative)}|${name.endsWith(".pom") ? 0 : 1}|${name}`;
}

async function importOne(ctx: LibraryImportContext, file: MirrorFile): Promise<FileOutcome> {
  try {
    if (file.ecosystem === "python") return await importPythonFile(ctx, file);
    if (file.ecosystem === "javascript") return await importNpmFile(ctx, file);
    return await importMavenFile(ctx, file, file.relative.slice("java/".length));
  } catch (error) {
    // A refused store (size, checksum) or an unreadable file concerns this file only.
    if (error instanceof LibraryError) return { kind: "refused", reason: error.message };
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === "string" && code.startsWith("E")) {
      return { kind: "refused", reason: `cannot read the file (${code})` };
    }
    throw error;
  }
}

/**
 * Imports every library file of a mirror folder into the organisation, one file at a time,
 * each with the checks its repository makes on an upload. A file already published with the
 * same bytes is unchanged, with other bytes a conflict; a refused file is reported and the rest
 * go on. Each publish commits on its own, so an interrupted import keeps what it did and a
 * rerun finds it unchanged.
 */
export async function importLibraries(
  ctx: LibraryImportContext,
  dir: string,
  onProgress: (progress: LibraryImportProgress) => void = () => {},
): Promise<LibraryImportSummary> {
  const listing = await walkMirror(dir);
  const files = listing.files
    .map((file) => ({ file, key: importOrder(file) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((entry) => entry.file);
  const counts = Object.fromEntries(
    ecosystems.map((e) => [
      e,
      {
        artifacts: 0,
        versionsCreated: 0,
        filesCreated: 0,
        filesUnchanged: 0,
        filesConflicting: 0,
        filesRefused: 0,
      },
    ]),
  ) as Record<Ecosystem, EcosystemImportCounts>;
  const summary: LibraryImportSummary = {
    ecosystems: counts,
    skipped: 0,
    ignored: 0,
    refused: 0,
    problems: [],
  };
  for (const entry of listing.skipped) {
    summary.skipped++;
    summary.problems.push({ path: entry.relative, outcome: "skipped", reason: entry.reason });
  }
  for (const entry of listing.refused) {
    summary.refused++;
    if (entry.ecosystem) counts[entry.ecosystem].filesRefused++;
    summary.problems.push({ path: entry.relative, outcome: "refused", reason: entry.reason });
  }
  const artifacts = new Set<string>();
  const progress: LibraryImportProgress = {
    files: 0,
    totalFiles: files.length,
    bytes: 0,
    totalBytes: files.reduce((sum, f) => sum + f.size, 0),
  };
  for (const file of files) {
    const outcome = await importOne(ctx, file);
    const count = counts[file.ecosystem];
    if ("artifact" in outcome && !artifacts.has(outcome.artifact)) {
      artifacts.add(outcome.artifact);
      count.artifacts++;
    }
    if (outcome.kind === "created") {
      count.filesCreated++;
      if (outcome.versionCreated) count.versionsCreated++;
    } else if (outcome.kind === "unchanged") count.filesUnchanged++;
    else if (outcome.kind === "ignored") summary.ignored++;
    else {
      if (outcome.kind === "conflict") count.filesConflicting++;
      else if (outcome.kind === "refused") {
        count.filesRefused++;
        summary.refused++;
      } else summary.skipped++;
      summary.problems.push({ path: file.relative, outcome: outcome.kind, reason: outcome.reason });
    }
    progress.files++;
    progress.bytes += file.size;
    onProgress(progress);
  }
  return summary;
}
