import { isSnapshot } from "./maven-path.ts";

/** What an artifact's `maven-metadata.xml` is generated from. */
export interface MetadataSource {
  groupId: string;
  artifactId: string;
  /** Every version, lowest first in Maven's order (the catalogue's version_rank). */
  versions: readonly string[];
  /** The artifact's last publish, ISO 8601. */
  updateTime: string;
}

/**
 * The artifact-level `maven-metadata.xml` Maven resolves version ranges and `LATEST`/`RELEASE`
 * with. It is a function of the catalogue alone (lastUpdated is the last publish, not the time
 * of the request), so the document and its checksum files always agree.
 */
export function renderMavenMetadata(source: MetadataSource): string {
  const { versions } = source;
  const latest = versions[versions.length - 1] ?? "";
  const release = [...versions].reverse().find((v) => !isSnapshot(v)) ?? "";
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    "<metadata>",
    `  <groupId>${escapeXml(source.groupId)}</groupId>`,
    `  <artifactId>${escapeXml(source.artifactId)}</artifactId>`,
    "  <versioning>",
    `    <latest>${escapeXml(latest)}</latest>`,
    `    <release>${escapeXml(release)}</release>`,
    "    <versions>",
    ...versions.map((v) => `      <version>${escapeXml(v)}</version>`),
    "    </versions>",
    `    <lastUpdated>${mavenTimestamp(source.updateTime)}</lastUpdated>`,
    "  </versioning>",
    "</metadata>",
    "",
  ];
  return lines.join("\n");
}

/** `yyyyMMddHHmmss` in UTC, the form of Maven's lastUpdated. */
export function mavenTimestamp(iso: string): string {
  return new Date(iso).toISOString().slice(0, 19).replace(/[-T:]/g, "");
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
