import type { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import tar from "tar-stream";
import { LibraryError } from "../../../libraries/index.ts";
import { DecompressionBudgetExceeded, decompressWithin } from "../../../store/blobs/index.ts";

/** What an npm tarball says about itself. */
export interface TarballFacts {
  /** `package/package.json` (npm's folder; any one top folder, as npm's installer allows). */
  packageJson: Record<string, unknown>;
  fileCount: number;
  unpackedSize: number;
}

/** Largest package.json read from a tarball. */
const maxPackageJsonBytes = 1024 * 1024;
/**
 * Bytes unpacked per compressed byte, past the first 64 MiB: real packages unpack to a few
 * times their size (source text gzips about 4:1), a gzip bomb of zeros to 1000 times.
 */
export const npmExpansion = { ratio: 100, floorBytes: 64 * 1024 * 1024 };

/**
 * Reads a gzip tar as it streams past (nothing is kept but package.json) and returns its
 * package.json and the counts npm shows as `dist.fileCount` and `dist.unpackedSize`. The whole
 * stream is read, so a truncated or corrupt gzip fails here. The decompression budget
 * ({@link npmExpansion}, and `maxUnpackedBytes` in all) bounds the work a small, highly
 * compressed upload can cause: past it the upload is refused at once (400).
 */
export async function inspectTarball(
  source: Readable,
  maxUnpackedBytes: number,
): Promise<TarballFacts> {
  const extract = tar.extract();
  const notTar = (why: string) => new LibraryError(400, `the attachment is not a gzip tar: ${why}`);
  const unpacked = decompressWithin(source, createGunzip(), {
    ...npmExpansion,
    maxBytes: maxUnpackedBytes,
  });
  const refusal = (error: Error) =>
    error instanceof DecompressionBudgetExceeded
      ? new LibraryError(400, `the attachment ${error.message}`)
      : error instanceof LibraryError
        ? error
        : notTar(error.message);
  // The tar may end (its end-of-archive blocks) before the gzip does: what follows is still
  // read, within the budget, and its failure still refuses the upload.
  const drained = finished(unpacked);
  drained.catch(() => {});
  unpacked.on("error", (error) => extract.destroy(refusal(error)));
  extract.on("error", () => {});
  unpacked.pipe(extract);
  let packageJson: Buffer | undefined;
  let fileCount = 0;
  let unpackedSize = 0;
  try {
    for await (const entry of extract) {
      const { header } = entry;
      if (header.type === "file") {
        fileCount++;
        unpackedSize += header.size ?? 0;
        if (unpackedSize > maxUnpackedBytes) {
          throw new LibraryError(413, `the tarball unpacks to more than ${maxUnpackedBytes} bytes`);
        }
        const parts = header.name.split("/");
        if (!packageJson && parts.length === 2 && parts[1] === "package.json") {
          if ((header.size ?? 0) > maxPackageJsonBytes) {
            throw new LibraryError(400, "package.json in the tarball is too large");
          }
          const chunks: Buffer[] = [];
          for await (const chunk of entry as AsyncIterable<Buffer>) chunks.push(chunk);
          packageJson = Buffer.concat(chunks);
          continue;
        }
      }
      entry.resume();
    }
    unpacked.resume();
    await drained.catch((error: Error) => {
      throw refusal(error);
    });
  } catch (error) {
    unpacked.destroy();
    if (error instanceof LibraryError) throw error;
    throw notTar((error as Error).message);
  }
  if (!packageJson) throw new LibraryError(400, "the tarball has no package/package.json");
  let parsed: unknown;
  try {
    parsed = JSON.parse(packageJson.toString("utf8"));
  } catch {
    throw new LibraryError(400, "package.json in the tarball is not JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new LibraryError(400, "package.json in the tarball is not a JSON object");
  }
  return { packageJson: parsed as Record<string, unknown>, fileCount, unpackedSize };
}
