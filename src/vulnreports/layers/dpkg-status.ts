import { readControlStanzas } from "./control-stanzas.ts";
import { debNamespace } from "./distro-namespace.ts";
import {
  archQualifier,
  type LayerPackage,
  type PackageDatabase,
  purlPart,
} from "./layer-package.ts";

const STATUS = "var/lib/dpkg/status";
const STATUS_D = "var/lib/dpkg/status.d/";

/**
 * Whether a path is a dpkg status database: the `status` file, or a file directly in
 * `status.d/` as distroless images write them, one per package. The `.md5sums` files beside
 * those list file checksums, not packages.
 */
export function isDpkgStatusPath(path: string): boolean {
  if (path === STATUS) return true;
  if (!path.startsWith(STATUS_D)) return false;
  const name = path.slice(STATUS_D.length);
  return name !== "" && !name.includes("/") && !name.endsWith(".md5sums");
}

/**
 * Reads dpkg status stanzas. In `status`, only packages whose `Status:` is
 * `install ok installed` count (removed packages leave `deinstall ok config-files` stanzas).
 * `status.d` stanzas carry no Status, being written only for installed packages; one that does
 * is held to the same rule. `distroId` (os-release ID) picks the namespace: ubuntu, else debian.
 */
export function parseDpkgStatus(text: string, path: string, distroId?: string): PackageDatabase {
  const { namespace, ecosystem } = debNamespace(distroId);
  const { stanzas, errors: lineErrors } = readControlStanzas(text);
  const errors = lineErrors.map((e) => `${path}: ${e}`);
  const packages: LayerPackage[] = [];
  const statusRequired = !path.startsWith(STATUS_D);
  for (const { fields, line } of stanzas) {
    const status = fields.get("status");
    if (status === undefined ? statusRequired : !isInstalled(status)) continue;
    const name = fields.get("package");
    const version = fields.get("version");
    if (!name || !version) {
      errors.push(`${path}: stanza at line ${line} has no ${name ? "Version" : "Package"}`);
      continue;
    }
    const arch = fields.get("architecture");
    const origin = sourceName(fields.get("source"));
    packages.push({
      name,
      version,
      purl: `pkg:deb/${namespace}/${purlPart(name)}@${purlPart(version)}${archQualifier(arch)}`,
      ecosystem,
      // dpkg records no licence; it lives in /usr/share/doc/<package>/copyright, free-form.
      licence: undefined,
      ...(origin ? { origin } : {}),
      source: path,
    });
  }
  return { packages, errors };
}

function isInstalled(status: string): boolean {
  return status.trim().split(/\s+/).join(" ") === "install ok installed";
}

/** `Source: glibc (2.36-9)` names the source package and, when it differs, its version. */
function sourceName(field: string | undefined): string | undefined {
  const name = field?.trim().split(/\s+/)[0];
  return name || undefined;
}
