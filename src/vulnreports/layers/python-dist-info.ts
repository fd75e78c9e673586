import { readControlStanzas } from "./control-stanzas.ts";
import type { PackageDatabase } from "./layer-package.ts";
import { formatPurl } from "./layer-package.ts";

/**
 * Where installed distributions keep their core metadata, in any folder (not only
 * site-packages: `pip install --target /app/deps` and vendored trees install elsewhere):
 * `<dist>.dist-info/METADATA` (wheels), `<dist>.egg-info/PKG-INFO` (setuptools installs,
 * Debian's own Python packages), a `<dist>.egg-info` file (distutils wrote one file), and
 * `<dist>.egg/EGG-INFO/PKG-INFO` (zipped eggs unpacked).
 */
const METADATA_PATHS = [
  /(?:^|\/)[^/]+\.dist-info\/METADATA$/,
  /(?:^|\/)[^/]+\.egg-info\/PKG-INFO$/,
  /(?:^|\/)[^/]+\.egg-info$/,
  /(?:^|\/)[^/]+\.egg\/EGG-INFO\/PKG-INFO$/,
];

/** Whether a path is an installed Python distribution's core metadata. */
export function isPythonDistInfoPath(path: string): boolean {
  return METADATA_PATHS.some((pattern) => pattern.test(path));
}

/** A distribution name as PEP 503 normalises it (and purl-spec's pypi type requires). */
export function normalisePythonName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, "-");
}

/**
 * Reads core metadata (an email-style header block; the body after the first blank line is the
 * description). The licence is `License-Expression:` (PEP 639), else a one-line `License:`:
 * many projects paste the whole licence text there, which names nothing a report can show.
 */
export function parsePythonDistInfo(text: string, path: string): PackageDatabase {
  const { stanzas } = readControlStanzas(text, true);
  const fields = stanzas[0]?.fields ?? new Map<string, string>();
  const name = fields.get("name")?.trim();
  const version = fields.get("version")?.trim();
  if (!name || !version) {
    return { packages: [], errors: [`${path}: no ${name ? "Version" : "Name"} field`] };
  }
  const normalised = normalisePythonName(name);
  const purl = formatPurl({ type: "pypi", name: normalised, version });
  if (purl.error !== undefined) return { packages: [], errors: [`${path}: ${purl.error}`] };
  return {
    packages: [
      {
        name: normalised,
        version,
        purl: purl.value,
        ecosystem: "PyPI",
        licence: licenceOf(fields),
        source: path,
      },
    ],
    errors: [],
  };
}

function licenceOf(fields: Map<string, string>): string | undefined {
  const expression = fields.get("license-expression")?.trim();
  if (expression) return expression;
  const licence = fields.get("license")?.trim();
  // Old setuptools wrote UNKNOWN when the project declared nothing.
  if (!licence || licence.includes("\n") || licence.length > 200 || licence === "UNKNOWN") {
    return undefined;
  }
  return licence;
}
