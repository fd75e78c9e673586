import {
  mavenScheme,
  normalizePep440,
  parsePep440Version,
  pep440Scheme,
  semverScheme,
  type VersionScheme,
} from "../versions/index.ts";

/** The library ecosystems Lading serves. */
export const ecosystems = ["python", "javascript", "java"] as const;
export type Ecosystem = (typeof ecosystems)[number];

/** True when `text` names an ecosystem Lading serves. */
export function isEcosystem(text: string): text is Ecosystem {
  return (ecosystems as readonly string[]).includes(text);
}

/** Each ecosystem's version rules: the comparators the security data matches with. */
export const ecosystemSchemes: Readonly<Record<Ecosystem, VersionScheme>> = Object.freeze({
  python: pep440Scheme as VersionScheme,
  javascript: semverScheme as VersionScheme,
  java: mavenScheme as VersionScheme,
});

/** The package URL type (purl-spec) of each ecosystem, for matching advisories. */
export const purlTypes: Readonly<Record<Ecosystem, string>> = Object.freeze({
  python: "pypi",
  javascript: "npm",
  java: "maven",
});

/** The capability that reads an ecosystem's repositories (install, download). */
export const pullCapability = (ecosystem: Ecosystem) => `libraries.${ecosystem}.list`;
/** The capability that publishes to an ecosystem's repositories. */
export const publishCapability = (ecosystem: Ecosystem) => `libraries.${ecosystem}.create`;

/** PEP 503 normalised project name: lower case, each run of `-`, `_` and `.` one `-`. */
export function normalizePythonName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, "-");
}

/** A PEP 440 version in its normal form (`1.0.0RC1` → `1.0.0rc1`), or why it is not one. */
export function normalizePythonVersion(text: string): { value?: string; error?: string } {
  const parsed = parsePep440Version(text);
  if (parsed.error !== undefined) return { error: parsed.error };
  return { value: normalizePep440(parsed.value) };
}

/**
 * The catalogue uid of an artifact: `<ecosystem>:<organisation uid>:<name>`, with the `/` of a
 * scoped npm name written `~` (which npm names may not contain) so the uid is one path segment.
 */
export function artifactUid(ecosystem: Ecosystem, orgUid: string, name: string): string {
  return `${ecosystem}:${orgUid}:${name.replaceAll("/", "~")}`;
}

/** The uid of one version of an artifact. */
export function versionUid(artifactUid: string, version: string): string {
  return `${artifactUid}@${version}`;
}

/** Longest artifact uid accepted in a request (names are bounded well below it). */
export const maxArtifactUidLength = 512;

/** The parts of an artifact uid, or why the text is not one. */
export function parseArtifactUid(text: string): {
  value?: { ecosystem: Ecosystem; orgUid: string; name: string };
  error?: string;
} {
  const error = "must be an artifact uid: <python|javascript|java>:<organisation uid>:<name>";
  if (text.length > maxArtifactUidLength)
    return { error: `${error}, at most ${maxArtifactUidLength} characters` };
  const match = /^([a-z]+):([0-9a-f]{40}):([^/]+)$/.exec(text);
  if (!match || !isEcosystem(match[1])) return { error };
  return { value: { ecosystem: match[1], orgUid: match[2], name: match[3] } };
}
