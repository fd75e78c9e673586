import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The project's shared sample data (`shared/data/<name>`), which sits beside the repository
 * or beside the folder of its work trees; undefined when this checkout has none.
 */
export function sharedDataDir(name: string): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "shared", "data", name);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Every JSON file under a folder, parsed, by path relative to it. */
export function readJsonTree(root: string): Map<string, unknown> {
  const files = new Map<string, unknown>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".json")) {
        files.set(relative(root, path), JSON.parse(readFileSync(path, "utf8")));
      }
    }
  };
  walk(root);
  return files;
}
