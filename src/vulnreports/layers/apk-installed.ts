import { APK_FAMILY, apkNamespace } from "./distro-namespace.ts";
import {
  distroQualifier,
  formatPurl,
  type LayerPackage,
  type PackageDatabase,
} from "./layer-package.ts";
import type { Distro } from "./os-release.ts";

/** The apk database path inside an image. */
export const APK_INSTALLED_PATH = "lib/apk/db/installed";

/**
 * Reads apk's installed database: records of `X:value` lines separated by blank lines, of
 * which `P:` name, `V:` version, `A:` arch, `L:` licence and `o:` origin are used. `distroId`
 * is the image's os-release: its ID picks the purl namespace (wolfi, chainguard, else alpine)
 * and it is the purl's `distro`.
 */
export function parseApkInstalled(text: string, path: string, distro?: Distro): PackageDatabase {
  const { namespace, ecosystem } = apkNamespace(distro?.id);
  const packages: LayerPackage[] = [];
  const errors: string[] = [];
  let record = new Map<string, string>();
  let start = 1;
  const finish = () => {
    if (record.size === 0) return;
    const name = record.get("P");
    const version = record.get("V");
    if (!name || !version) {
      errors.push(`${path}: record at line ${start} has no ${name ? "V: version" : "P: name"}`);
    } else {
      const purl = formatPurl({
        type: "apk",
        namespace,
        name,
        version,
        qualifiers: { arch: record.get("A"), distro: distroQualifier(distro, APK_FAMILY) },
      });
      if (purl.error !== undefined) {
        errors.push(`${path}: record at line ${start}: ${purl.error}`);
        record = new Map();
        return;
      }
      packages.push({
        name,
        version,
        purl: purl.value,
        ecosystem,
        licence: record.get("L") || undefined,
        ...(record.get("o") ? { origin: record.get("o") } : {}),
        source: path,
      });
    }
    record = new Map();
  };
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === "") {
      finish();
      start = i + 2;
      continue;
    }
    // Keys are one character; the per-file lines (R:, Z:, …) repeat and are not needed.
    if (line[1] !== ":") {
      errors.push(`${path}: line ${i + 1} is not a "X:value" line`);
      continue;
    }
    if (!record.has(line[0])) record.set(line[0], line.slice(2));
  }
  finish();
  return { packages, errors };
}
