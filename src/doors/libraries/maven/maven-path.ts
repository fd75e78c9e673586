import { artifactUid, parseFileName } from "../../../libraries/index.ts";

/** Checksum files Maven reads and writes next to each file, by suffix. */
export const checksumAlgorithms = ["sha1", "md5", "sha256", "sha512"] as const;
export type ChecksumAlgorithm = (typeof checksumAlgorithms)[number];

/** A path of the Maven 2 layout, decoded and checked. */
export type MavenPath =
  | {
      kind: "file";
      groupId: string;
      artifactId: string;
      version: string;
      /** The artifact file's name (without a checksum suffix). */
      filename: string;
      /** Set when the path names the file's checksum file. */
      checksum?: ChecksumAlgorithm;
    }
  | { kind: "metadata"; groupId: string; artifactId: string; checksum?: ChecksumAlgorithm };

const metadataName = "maven-metadata.xml";
const maxSegments = 32;
const maxPathLength = 2048;
/** A groupId segment or artifactId: Maven's own characters, no dot in a group segment. */
const groupSegment = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,99}$/;
const artifactName = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;
/** Versions as Maven projects write them; anything else (spaces, slashes, `%`) is refused. */
const versionText = /^[A-Za-z0-9_][A-Za-z0-9_.+-]{0,99}$/;

/**
 * Parses `rest` (the percent-encoded path after `/java/<org>`) as
 * `<group segments>/<artifactId>/<version>/<file>` or `<group segments>/<artifactId>/maven-metadata.xml`,
 * each optionally with a checksum suffix. Every segment is decoded once and checked, so `..`,
 * `%2e%2e`, backslashes and empty segments never reach the store.
 */
export function parseMavenPath(rest: string): { value?: MavenPath; error?: string } {
  if (rest.length > maxPathLength) return { error: `path is longer than ${maxPathLength}` };
  const raw = rest.replace(/^\//, "").split("/");
  if (raw.length > maxSegments) return { error: `path has more than ${maxSegments} segments` };
  const segments: string[] = [];
  for (const part of raw) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(part);
    } catch {
      return { error: `path segment "${part}" is not valid percent-encoding` };
    }
    const checked = parseFileName(decoded);
    if (checked.error !== undefined) return { error: `path: ${checked.error}` };
    segments.push(decoded);
  }
  const last = segments[segments.length - 1];
  const { base, checksum } = splitChecksum(last);
  if (base === metadataName) {
    if (segments.length < 3) return { error: "maven-metadata.xml needs a groupId and artifactId" };
    const coordinates = checkCoordinates(segments.slice(0, -2), segments[segments.length - 2]);
    if (coordinates.error !== undefined) return { error: coordinates.error };
    return { value: { kind: "metadata", ...coordinates.value, checksum } };
  }
  if (segments.length < 4) {
    return { error: "path is not <groupId path>/<artifactId>/<version>/<file>" };
  }
  const coordinates = checkCoordinates(segments.slice(0, -3), segments[segments.length - 3]);
  if (coordinates.error !== undefined) return { error: coordinates.error };
  const version = segments[segments.length - 2];
  if (!versionText.test(version)) return { error: `version "${version}" is not valid` };
  const { artifactId } = coordinates.value;
  const stem = `${artifactId}-${version}`;
  const tail = base.slice(stem.length);
  if (!base.startsWith(stem) || !/^(-[A-Za-z0-9_.-]+)?\.[A-Za-z0-9_.]+$/.test(tail)) {
    return {
      error: `file name "${base}" must be ${stem}.<extension> or ${stem}-<classifier>.<extension>`,
    };
  }
  return { value: { kind: "file", ...coordinates.value, version, filename: base, checksum } };
}

/** True for a version Maven treats as a snapshot (`1.0-SNAPSHOT`). */
export function isSnapshot(version: string): boolean {
  return version.toUpperCase().endsWith("SNAPSHOT");
}

/** The catalogue uid of `groupId:artifactId` in the organisation. */
export function mavenArtifactUid(orgUid: string, path: { groupId: string; artifactId: string }) {
  return artifactUid("java", orgUid, `${path.groupId}:${path.artifactId}`);
}

/** The stored hex digest of a file row for `algorithm`. */
export function storedChecksum(
  row: { digest: string; sha1: string; md5: string; sha512: string },
  algorithm: ChecksumAlgorithm,
): string {
  return algorithm === "sha256" ? row.digest.replace(/^sha256:/, "") : row[algorithm];
}

function splitChecksum(name: string): { base: string; checksum?: ChecksumAlgorithm } {
  const dot = name.lastIndexOf(".");
  const suffix = name.slice(dot + 1) as ChecksumAlgorithm;
  if (dot > 0 && checksumAlgorithms.includes(suffix)) {
    return { base: name.slice(0, dot), checksum: suffix };
  }
  return { base: name };
}

function checkCoordinates(
  group: string[],
  artifactId: string,
): { value: { groupId: string; artifactId: string }; error?: undefined } | { error: string } {
  const bad = group.find((segment) => !groupSegment.test(segment));
  if (bad !== undefined) return { error: `groupId segment "${bad}" is not valid` };
  if (!artifactName.test(artifactId)) return { error: `artifactId "${artifactId}" is not valid` };
  return { value: { groupId: group.join("."), artifactId } };
}
