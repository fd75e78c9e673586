import { lstat, opendir, realpath, stat } from "node:fs/promises";
import { join, sep } from "node:path";
import type { Ecosystem } from "../libraries/index.ts";
import type { MirrorFile } from "./library-import-file.ts";

/** The folder each ecosystem's files are read from, under the mirror folder. */
export const mirrorFolders: Readonly<Record<string, Ecosystem>> = Object.freeze({
  python: "python",
  javascript: "javascript",
  java: "java",
});

/** A path the walk did not import, and why. */
export interface MirrorEntry {
  relative: string;
  ecosystem?: Ecosystem;
  reason: string;
}

/** What a mirror folder holds. */
export interface MirrorListing {
  files: MirrorFile[];
  /** Not a file to import (outside the three folders, a symlinked folder, a device). */
  skipped: MirrorEntry[];
  /** Symlinks that lead out of the folder or nowhere: refused, never read. */
  refused: MirrorEntry[];
}

/** Deepest folder nesting walked; a Maven group path is rarely past 10. */
const maxDepth = 48;

/**
 * Lists the files of a mirror folder: `python/**`, `javascript/**` and `java/**`. A symlink is
 * followed only when its target is a file inside the folder; one leading outside (or nowhere)
 * is refused, and a symlinked folder is not walked (its target, inside the folder, is).
 */
export async function walkMirror(dir: string): Promise<MirrorListing> {
  const root = await realpath(dir);
  if (!(await stat(root)).isDirectory()) throw new Error(`${dir} is not a folder`);
  const listing: MirrorListing = { files: [], skipped: [], refused: [] };
  const inside = (path: string) => path === root || path.startsWith(root + sep);

  async function walk(path: string, relative: string, ecosystem: Ecosystem, depth: number) {
    if (depth > maxDepth) {
      listing.skipped.push({
        relative,
        ecosystem,
        reason: `nested deeper than ${maxDepth} folders`,
      });
      return;
    }
    const entries = [];
    for await (const entry of await opendir(path)) entries.push(entry);
    for (const entry of entries) {
      const full = join(path, entry.name);
      const rel = `${relative}/${entry.name}`;
      if (entry.isDirectory()) await walk(full, rel, ecosystem, depth + 1);
      else if (entry.isFile()) {
        listing.files.push({
          ecosystem,
          path: full,
          relative: rel,
          size: (await lstat(full)).size,
        });
      } else if (entry.isSymbolicLink()) await followLink(full, rel, ecosystem);
      else listing.skipped.push({ relative: rel, ecosystem, reason: "not a regular file" });
    }
  }

  async function followLink(path: string, relative: string, ecosystem: Ecosystem) {
    const target = await realpath(path).catch(() => undefined);
    if (target === undefined || !inside(target)) {
      listing.refused.push({
        relative,
        ecosystem,
        reason: target === undefined ? "a broken symlink" : "a symlink leading out of the folder",
      });
      return;
    }
    const info = await stat(target);
    if (info.isFile()) listing.files.push({ ecosystem, path: target, relative, size: info.size });
    else listing.skipped.push({ relative, ecosystem, reason: "a symlinked folder is not walked" });
  }

  for await (const entry of await opendir(root)) {
    // Own keys only: a folder named like an Object.prototype member is no ecosystem.
    const ecosystem = Object.hasOwn(mirrorFolders, entry.name)
      ? mirrorFolders[entry.name]
      : undefined;
    if (ecosystem && entry.isDirectory())
      await walk(join(root, entry.name), entry.name, ecosystem, 1);
    else if (
      entry.isSymbolicLink() &&
      (await realpath(join(root, entry.name)).then(inside, () => false)) === false
    ) {
      listing.refused.push({ relative: entry.name, reason: "a symlink leading out of the folder" });
    } else {
      listing.skipped.push({
        relative: entry.name,
        reason: "not under python/, javascript/ or java/",
      });
    }
  }
  return listing;
}
