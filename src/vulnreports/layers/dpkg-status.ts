import { readControlStanzas } from "./control-stanzas.ts";
import { DEB_FAMILY, debNamespace } from "./distro-namespace.ts";
import {
  distroQualifier,
  formatPurl,
  type LayerPackage,
  type PackageDatabase,
} from "./layer-package.ts";
import type { Distro } from "./os-release.ts";

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
 * is held to the same rule. The image's os-release picks the namespace (ubuntu, else debian)
 * and the purl's `distro`; the epoch goes to its own qualifier and the source package to
 * `upstream`, as purl-spec writes deb purls.
 */
export function parseDpkgStatus(text: string, path: string, distro?: Distro): PackageDatabase {
  const { namespace, ecosystem } = debNamespace(distro?.id);
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
    const origin = sourceName(fields.get("source"));
    const { epoch, rest } = splitEpoch(version);
    const purl = formatPurl({
      type: "deb",
      namespace,
      name,
      version: rest,
      qualifiers: {
        arch: fields.get("architecture"),
        distro: distroQualifier(distro, DEB_FAMILY),
        epoch,
        upstream: origin,
      },
    });
    if (purl.error !== undefined) {
      errors.push(`${path}: stanza at line ${line}: ${purl.error}`);
      continue;
    }
    packages.push({
      name,
      version,
      purl: purl.value,
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

/** `1:4.13+dfsg1-1` → epoch 1 and the rest; no epoch when the version has none. */
export function splitEpoch(version: string): { epoch: string | undefined; rest: string } {
  const colon = version.indexOf(":");
  if (colon <= 0 || !/^\d+$/.test(version.slice(0, colon)))
    return { epoch: undefined, rest: version };
  return { epoch: version.slice(0, colon), rest: version.slice(colon + 1) };
}

/** `Source: glibc (2.36-9)` names the source package and, when it differs, its version. */
function sourceName(field: string | undefined): string | undefined {
  const name = field?.trim().split(/\s+/)[0];
  return name || undefined;
}
