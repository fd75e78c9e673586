import { apkNamespace } from "./distro-namespace.ts";
import {
  archQualifier,
  type LayerPackage,
  type PackageDatabase,
  purlPart,
} from "./layer-package.ts";

/** The apk database path inside an image. */
export const APK_INSTALLED_PATH = "lib/apk/db/installed";

/**
 * Reads apk's installed database: records of `X:value` lines separated by blank lines, of
 * which `P:` name, `V:` version, `A:` arch, `L:` licence and `o:` origin are used. `distroId`
 * is the os-release ID, which picks the purl namespace (wolfi, chainguard, else alpine).
 */
export function parseApkInstalled(text: string, path: string, distroId?: string): PackageDatabase {
  const { namespace, ecosystem } = apkNamespace(distroId);
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
      const arch = record.get("A");
      packages.push({
        name,
        version,
        purl: `pkg:apk/${namespace}/${purlPart(name)}@${purlPart(version)}${archQualifier(arch)}`,
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
