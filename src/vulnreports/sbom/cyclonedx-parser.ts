import {
  isRecord,
  MAX_SBOM_PACKAGES,
  readPurl,
  type SbomFormat,
  type SbomPackage,
  type SbomResult,
  text,
} from "./sbom-package.ts";

const VERSIONS: Record<string, SbomFormat> = {
  "1.4": "cyclonedx-1.4",
  "1.5": "cyclonedx-1.5",
  "1.6": "cyclonedx-1.6",
};

/**
 * Reads a CycloneDX 1.4–1.6 JSON BOM, already parsed, into its components, depth first and
 * parents before their nested `components`. `metadata.component` (the image the BOM is about)
 * is not a package in it and is left out, as are `file` components. The name is the
 * component's own name, never `group:name`: the group is in the purl, and joining them would
 * make a Maven name unlike every other SBOM's.
 */
export function parseCycloneDx(doc: unknown): SbomResult {
  if (!isRecord(doc)) return { error: "a CycloneDX BOM must be a JSON object" };
  if (doc.bomFormat !== "CycloneDX") {
    return { error: `bomFormat ${JSON.stringify(doc.bomFormat)} is not CycloneDX` };
  }
  const spec = doc.specVersion;
  const format = typeof spec === "string" ? VERSIONS[spec] : undefined;
  if (format === undefined) {
    return {
      error: `CycloneDX specVersion ${JSON.stringify(spec)} is not one Lading reads (1.4, 1.5, 1.6)`,
    };
  }
  const top = doc.components ?? [];
  if (!Array.isArray(top)) return { error: "components must be a list" };
  const notes: string[] = [];
  const packages: SbomPackage[] = [];
  // A stack rather than recursion, so a caller that skipped parseSbom's depth check cannot
  // overflow ours; pushed in reverse so components come out in document order.
  const stack: Place[] = [];
  const push = (list: unknown[], parent?: Place) => {
    for (let i = list.length - 1; i >= 0; i--) stack.push({ component: list[i], index: i, parent });
  };
  push(top);
  let seen = 0;
  while (stack.length > 0) {
    const place = stack.pop() as Place;
    const { component } = place;
    if (++seen > MAX_SBOM_PACKAGES) {
      return { error: `more than the ${MAX_SBOM_PACKAGES} components allowed` };
    }
    if (!isRecord(component)) {
      notes.push(`${pathOf(place)} is not an object, so it was skipped`);
      continue;
    }
    if (component.components !== undefined) {
      if (Array.isArray(component.components)) push(component.components, place);
      else notes.push(`${pathOf(place)}.components is not a list, so it was skipped`);
    }
    if (component.type === "file") continue;
    const purl = readPurl(component.purl, () => pathOf(place), notes);
    const name = text(component.name) ?? purl.name;
    if (name === undefined) {
      notes.push(`${pathOf(place)} has no name, so it was skipped`);
      continue;
    }
    packages.push({
      name,
      version: text(component.version) ?? purl.version ?? "",
      purl: purl.purl,
      ecosystem: purl.ecosystem,
      licence: licenceOf(component.licenses),
    });
  }
  return { value: { format, packages, notes } };
}

/** A component and where it sits, its path spelled out only when a note needs it. */
interface Place {
  component: unknown;
  index: number;
  parent?: Place;
}

/**
 * `components[0].components[2]`: built on demand because deep nesting would make a path per
 * component cost quadratic memory.
 */
function pathOf(place: Place): string {
  const steps: string[] = [];
  for (let p: Place | undefined = place; p !== undefined; p = p.parent) {
    steps.push(`components[${p.index}]`);
  }
  return steps.reverse().join(".");
}

/**
 * One SPDX expression for a component's `licenses`: an id, a name, or an expression each. A
 * component listing several is taken to be under all of them (AND), the reading that never
 * understates an obligation; compound parts are parenthesised so the result still parses.
 */
function licenceOf(licenses: unknown): string {
  if (!Array.isArray(licenses)) return "";
  const parts: string[] = [];
  for (const choice of licenses) {
    if (!isRecord(choice)) continue;
    const licence = isRecord(choice.license)
      ? (text(choice.license.id) ?? text(choice.license.name))
      : text(choice.expression);
    const trimmed = licence?.trim();
    if (trimmed !== undefined && trimmed !== "" && !parts.includes(trimmed)) parts.push(trimmed);
  }
  if (parts.length <= 1) return parts[0] ?? "";
  return parts.map((p) => (/\s/.test(p) ? `(${p})` : p)).join(" AND ");
}
