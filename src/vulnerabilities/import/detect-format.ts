import type { ImportFormatName } from "./import-formats.ts";

/** How far into a file detection looks: the telling keys come first in every format. */
const sniffBytes = 4096;

/**
 * The format of a feed file, from its name and first bytes: advisory YAML by its
 * `.advisories.yaml` name, EPSS by `.csv`, and the JSON formats by their telling keys
 * (OpenVEX `@context`, NVD `"format": "NVD_CVE"`, KEV `catalogVersion`, OSV `schema_version`
 * or `modified` with `id`). Undefined when nothing matches.
 */
export function detectFormat(file: string, text: string): ImportFormatName | undefined {
  const name = file.toLowerCase();
  if (name.endsWith(".advisories.yaml") || name.endsWith(".advisories.yml")) return "advisories";
  if (name.endsWith(".csv") || name.endsWith(".csv.gz")) return "epss";
  const head = text.slice(0, sniffBytes);
  if (!/^\s*[[{]/.test(head)) return undefined;
  if (head.includes("openvex.dev/ns")) return "openvex";
  if (/"format"\s*:\s*"NVD_CVE"/.test(head)) return "nvd";
  if (/"catalogVersion"\s*:/.test(head)) return "kev";
  if (/"schema_version"\s*:|"modified"\s*:/.test(head) && /"id"\s*:/.test(head)) return "osv";
  return undefined;
}
