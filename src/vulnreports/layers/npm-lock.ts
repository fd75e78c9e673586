import { formatPurl, type LayerPackage, type PackageDatabase } from "./layer-package.ts";

/**
 * `package-lock.json` (and `npm-shrinkwrap.json`, the same format) outside every
 * `node_modules`: an application's lock, in an image that may not hold its node_modules (or holds
 * them elsewhere). npm's hidden lock, `node_modules/.package-lock.json`, lies inside one and
 * repeats what the manifests there say.
 */
export function isNpmLockPath(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return (
    (name === "package-lock.json" || name === "npm-shrinkwrap.json") &&
    !/(?:^|\/)node_modules\//.test(path)
  );
}

/**
 * Reads the `packages` map of a version 2 or 3 lock: each `node_modules/…` key with a resolved
 * `version` is a package (its `name` when an alias installed it under another folder name).
 * The root entry (`""`) is the application, whose package.json says so; workspace `link`
 * entries and dev-only entries (`dev: true`, not installed by `npm ci --omit=dev`, as other
 * scanners leave them out) are skipped. A version 1 lock has no `packages` map and is not read.
 */
export function parseNpmLock(text: string, path: string): PackageDatabase {
  let lock: unknown;
  try {
    lock = JSON.parse(text);
  } catch (error) {
    return { packages: [], errors: [`${path}: not JSON: ${(error as Error).message}`] };
  }
  const packagesMap = (lock as { packages?: unknown } | null)?.packages;
  if (typeof packagesMap !== "object" || packagesMap === null || Array.isArray(packagesMap)) {
    return { packages: [], errors: [`${path}: no "packages" map (lockfileVersion 2 or 3)`] };
  }
  const packages: LayerPackage[] = [];
  const errors: string[] = [];
  for (const [key, raw] of Object.entries(packagesMap)) {
    const at = key.lastIndexOf("node_modules/");
    if (at < 0 || typeof raw !== "object" || raw === null) continue;
    const entry = raw as Record<string, unknown>;
    if (entry.link === true || entry.dev === true) continue;
    const version = entry.version;
    if (typeof version !== "string" || version === "") continue;
    const name =
      typeof entry.name === "string" ? entry.name : key.slice(at + "node_modules/".length);
    const slash = name.startsWith("@") ? name.indexOf("/") : -1;
    const purl = formatPurl({
      type: "npm",
      namespace: slash > 0 ? name.slice(0, slash) : undefined,
      name: slash > 0 ? name.slice(slash + 1) : name,
      version,
    });
    if (purl.error !== undefined) {
      errors.push(`${path}: ${key}: ${purl.error}`);
      continue;
    }
    packages.push({
      name,
      version,
      purl: purl.value,
      ecosystem: "npm",
      licence:
        typeof entry.license === "string" && entry.license !== "" ? entry.license : undefined,
      source: path,
    });
  }
  return { packages, errors };
}
