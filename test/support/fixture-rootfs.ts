import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import type { TarEntry } from "./tar-layers.ts";

/** The rootfs of an image fixture under test/fixtures/images/<name>/ (see its ORIGIN.md). */
export const fixtureRootfs = (name: string): string =>
  new URL(`../fixtures/images/${name}/rootfs/`, import.meta.url).pathname;

/** Every file under a fixture's rootfs as one layer's entries, paths relative to it, sorted. */
export async function rootfsEntries(name: string): Promise<TarEntry[]> {
  const root = fixtureRootfs(name);
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  return Promise.all(
    files
      .sort()
      .map(async (file) => ({ name: relative(root, file), content: await readFile(file) })),
  );
}
