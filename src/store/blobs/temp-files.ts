import { readdir, stat, unlink } from "node:fs/promises";
import { join } from "node:path";

/** Names of the filesystem driver's temp files: `put-` (monolithic writes), `upload-` (sessions). */
export const tempNamePattern = /^(?:put|upload)-[a-f0-9]{32}$/;

/**
 * Removes the temp files of `tmpDir` not modified for `olderThanMs`, except those named in
 * `live`, calling `removed` with each name; returns how many. Files of other names are left
 * alone: the directory is ours, but nothing else in it was made by us.
 */
export async function sweepTempFiles(
  tmpDir: string,
  olderThanMs: number,
  live: ReadonlySet<string>,
  removed: (name: string) => void,
): Promise<number> {
  const cutoff = Date.now() - olderThanMs;
  let count = 0;
  for (const name of await readdir(tmpDir)) {
    if (!tempNamePattern.test(name) || live.has(name)) continue;
    const path = join(tmpDir, name);
    try {
      if ((await stat(path)).mtimeMs >= cutoff) continue;
      await unlink(path);
      removed(name);
      count++;
    } catch (error) {
      ignoreMissing(error);
    }
  }
  return count;
}

/** Rethrows anything but a missing file. */
export function ignoreMissing(error: unknown) {
  if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
}
