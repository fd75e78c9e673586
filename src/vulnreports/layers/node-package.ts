import type { PackageDatabase } from "./layer-package.ts";
import { formatPurl } from "./layer-package.ts";

/**
 * `node_modules/<name>/package.json` or `node_modules/@scope/<name>/package.json`, at any depth
 * of nesting. Only the manifest directly in the package folder describes the package: deeper
 * package.json files (`lib/package.json` with `"type": "module"`) are markers, and `.bin`,
 * `.pnpm` and friends are not packages.
 */
const MANIFEST_PATH = /(?:^|\/)node_modules\/(?:@[^/]+\/)?[^/.@][^/]*\/package\.json$/;

/** Whether a path is the manifest of an installed npm package. */
export function isNodePackagePath(path: string): boolean {
  return MANIFEST_PATH.test(path);
}

/**
 * A `package.json` outside every `node_modules`: an application's own manifest, or a package
 * vendored or installed by a distribution (`usr/share/nodejs/<name>/package.json`). Only those
 * with a name and a version are packages; the rest (`{"type": "module"}` markers, private
 * workspaces without a version) are not, and are not errors either.
 */
export function isNodeApplicationPath(path: string): boolean {
  return (
    (path === "package.json" || path.endsWith("/package.json")) &&
    !/(?:^|\/)node_modules\//.test(path)
  );
}

/** As `parseNodePackage`, for `isNodeApplicationPath` files: what is no package is skipped. */
export function parseNodeApplication(text: string, path: string): PackageDatabase {
  const read = parseNodePackage(text, path);
  return read.packages.length > 0 ? read : { packages: [], errors: [] };
}

/**
 * Reads an installed package's manifest. The name is the manifest's own, not the folder's: an
 * alias (`"x": "npm:y@1"`) installs y under node_modules/x, and advisories are about y.
 */
export function parseNodePackage(text: string, path: string): PackageDatabase {
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (error) {
    return { packages: [], errors: [`${path}: not JSON: ${(error as Error).message}`] };
  }
  if (typeof manifest !== "object" || manifest === null) {
    return { packages: [], errors: [`${path}: not a JSON object`] };
  }
  const { name, version } = manifest as { name?: unknown; version?: unknown };
  if (typeof name !== "string" || name === "" || typeof version !== "string" || version === "") {
    return { packages: [], errors: [`${path}: no string "name" and "version"`] };
  }
  const slash = name.startsWith("@") ? name.indexOf("/") : -1;
  const purl = formatPurl({
    type: "npm",
    namespace: slash > 0 ? name.slice(0, slash) : undefined,
    name: slash > 0 ? name.slice(slash + 1) : name,
    version,
  });
  if (purl.error !== undefined) return { packages: [], errors: [`${path}: ${purl.error}`] };
  return {
    packages: [
      {
        name,
        version,
        purl: purl.value,
        ecosystem: "npm",
        licence: licenceOf(manifest as Record<string, unknown>),
        source: path,
      },
    ],
    errors: [],
  };
}

/** `license` as SPDX string or legacy `{ type }`, else the legacy `licenses` list, ORed. */
function licenceOf(manifest: Record<string, unknown>): string | undefined {
  const single = typeOf(manifest.license);
  if (single) return single;
  if (!Array.isArray(manifest.licenses)) return undefined;
  const all = manifest.licenses.map(typeOf).filter((l): l is string => l !== undefined);
  return all.length > 0 ? all.join(" OR ") : undefined;
}

function typeOf(value: unknown): string | undefined {
  if (typeof value === "string") return value.trim() || undefined;
  if (typeof value === "object" && value !== null) {
    const type = (value as { type?: unknown }).type;
    if (typeof type === "string") return type.trim() || undefined;
  }
  return undefined;
}
