import { readControlStanzas } from "./control-stanzas.ts";
import type { PackageDatabase } from "./layer-package.ts";
import { purlPart } from "./layer-package.ts";

/** `…/site-packages/<dist>.dist-info/METADATA` or the same under `dist-packages` (Debian). */
const METADATA_PATH = /(?:^|\/)(?:site|dist)-packages\/[^/]+\.dist-info\/METADATA$/;

/** Whether a path is an installed Python distribution's core metadata. */
export function isPythonDistInfoPath(path: string): boolean {
  return METADATA_PATH.test(path);
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
  return {
    packages: [
      {
        name: normalised,
        version,
        purl: `pkg:pypi/${purlPart(normalised)}@${purlPart(version)}`,
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
