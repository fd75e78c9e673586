import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import tar from "tar-stream";
import { normalizePythonName, normalizePythonVersion } from "../../../libraries/index.ts";
import {
  type BlobStore,
  DecompressionBudgetExceeded,
  decompressWithin,
} from "../../../store/blobs/index.ts";
import type { PythonFileKind } from "./python-file-name.ts";
import { readZipDirectory, readZipMember } from "./zip-directory.ts";

/** Largest METADATA file read from a wheel (it carries the long description). */
const maxMetadataBytes = 16 * 1024 * 1024;
/** Longest summary kept from METADATA. */
const maxSummary = 2000;
/**
 * A gzip whose output passes this many times the bytes read so far (after 64 MiB) is refused,
 * not unpacked on; and beyond the caller's flat bound whatever its size, as npm tarballs are
 * (maxFileBytes × 8).
 */
const maxExpansion = 200;

/** What a distribution's own metadata declares, where it was read. */
export interface DistributionFacts {
  requiresPython?: string;
  /** A wheel's METADATA `Name` as its author spells it (the display name). */
  name?: string;
  /** A wheel's METADATA `Summary`. */
  summary?: string;
}

/**
 * Checks a stored distribution: a wheel must be a zip archive with one `*.dist-info/METADATA`
 * naming `project` at `version`; an sdist a readable gzip tar or zip archive. Returns what the
 * wheel's metadata declares (an sdist's PKG-INFO, when it names the project, gives its name and
 * summary only: old sdists' PKG-INFO is not trusted to refuse them), or why the file is refused.
 */
export async function checkDistribution(
  blobs: BlobStore,
  file: { digest: string; size: number; filename: string; kind: PythonFileKind },
  project: string,
  version: string,
  maxUnpackedBytes: number,
): Promise<{ value?: DistributionFacts; error?: string }> {
  if (file.kind === "sdist" && file.filename.toLowerCase().endsWith(".tar.gz")) {
    const read = await checkTarGz(blobs, file.digest, maxUnpackedBytes);
    if (read.error !== undefined) return { error: `${file.filename}: ${read.error}` };
    return { value: sdistFacts(read.pkgInfo, project) };
  }
  const dir = await readZipDirectory(blobs, file.digest, file.size);
  if (dir.error !== undefined) return { error: `${file.filename}: ${dir.error}` };
  if (file.kind === "sdist") {
    const entry = (dir.value ?? []).find((e) => /^[^/]+\/PKG-INFO$/.test(e.name));
    const bytes = entry && (await readZipMember(blobs, file.digest, entry, maxMetadataBytes));
    return { value: sdistFacts(bytes?.value?.toString("utf8"), project) };
  }
  const metadata = (dir.value ?? []).filter((e) => /^[^/]+\.dist-info\/METADATA$/.test(e.name));
  if (metadata.length !== 1) {
    return {
      error: `wheel ${file.filename} has ${metadata.length} *.dist-info/METADATA files, not one`,
    };
  }
  const bytes = await readZipMember(blobs, file.digest, metadata[0], maxMetadataBytes);
  if (bytes.error !== undefined) return { error: `wheel ${file.filename}: ${bytes.error}` };
  const headers = parseMetadataHeaders(bytes.value?.toString("utf8") ?? "");
  const name = headers.get("name") ?? "";
  if (normalizePythonName(name) !== project) {
    return { error: `wheel ${file.filename}: METADATA names project "${name}", not ${project}` };
  }
  const declared = headers.get("version") ?? "";
  if (normalizePythonVersion(declared).value !== version) {
    return {
      error: `wheel ${file.filename}: METADATA names version "${declared}", not ${version}`,
    };
  }
  return {
    value: {
      requiresPython: headers.get("requires-python"),
      name,
      summary: headers.get("summary")?.slice(0, maxSummary),
    },
  };
}

/** An sdist's display name and summary from its PKG-INFO, when that names the project. */
function sdistFacts(pkgInfo: string | undefined, project: string): DistributionFacts {
  const headers = parseMetadataHeaders(pkgInfo ?? "");
  const name = headers.get("name") ?? "";
  if (normalizePythonName(name) !== project) return {};
  return { name, summary: headers.get("summary")?.slice(0, maxSummary) };
}

/** The first value of each header of a core metadata file (RFC 822 style), keys lower case. */
function parseMetadataHeaders(text: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    if (line === "") break;
    const colon = line.indexOf(":");
    if (colon <= 0 || line[0] === " " || line[0] === "\t") continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(key)) headers.set(key, line.slice(colon + 1).trim());
  }
  return headers;
}

/**
 * Reads a gzip tar through to its end, keeping its top folder's PKG-INFO; why not when it is
 * no gzip tar.
 */
async function checkTarGz(
  blobs: BlobStore,
  digest: string,
  maxUnpackedBytes: number,
): Promise<{ error?: string; pkgInfo?: string }> {
  const extract = tar.extract();
  let entries = 0;
  let pkgInfo: string | undefined;
  const reading = (async () => {
    for await (const entry of extract) {
      entries++;
      const { name, size: entrySize = 0, type } = entry.header;
      if (pkgInfo === undefined && type === "file" && /^[^/]+\/PKG-INFO$/.test(name)) {
        if (entrySize <= maxMetadataBytes) {
          const chunks: Buffer[] = [];
          for await (const chunk of entry as AsyncIterable<Buffer>) chunks.push(chunk);
          pkgInfo = Buffer.concat(chunks).toString("utf8");
          continue;
        }
      }
      entry.resume();
    }
  })();
  try {
    const unpacked = decompressWithin(await blobs.get(digest), createGunzip(), {
      ratio: maxExpansion,
      floorBytes: 64 * 1024 * 1024,
      maxBytes: maxUnpackedBytes,
    });
    await Promise.all([pipeline(unpacked, extract), reading]);
  } catch (error) {
    extract.destroy();
    await reading.catch(() => undefined);
    if (error instanceof DecompressionBudgetExceeded) return { error: error.message };
    return { error: `not a gzip tar archive (${(error as Error).message})` };
  }
  return entries === 0 ? { error: "the tar archive is empty" } : { pkgInfo };
}
