import { type UnzipFileInfo, unzipSync } from "fflate";
import { formatPurl, type LayerPackage, type PackageDatabase } from "./layer-package.ts";

/** Jars, wars, ears and the plugin archives built the same way. */
const ARCHIVE_PATH = /\.(?:jar|war|ear|par|sar|jpi|hpi)$/i;

/** Whether a path is a Java archive. */
export function isJavaArchivePath(path: string): boolean {
  return ARCHIVE_PATH.test(path);
}

/**
 * Bounds on one archive: a war nests jars (WEB-INF/lib), a Spring Boot jar nests them
 * (BOOT-INF/lib), and nothing real nests deeper than that; an entry's declared size is what
 * is inflated, so a small entry cannot claim a large buffer.
 */
const MAX_DEPTH = 2;
const MAX_NESTED_BYTES = 16 * 1024 * 1024;
const MAX_METADATA_BYTES = 64 * 1024;
const MAX_RATIO = 200;

const POM_PROPERTIES = /^META-INF\/maven\/[^/]+\/[^/]+\/pom\.properties$/;
const MANIFEST = "META-INF/MANIFEST.MF";

/**
 * Lists the Maven artefacts a Java archive holds: each `pom.properties` Maven wrote into it
 * (a shaded jar holds several), else what its manifest says when it names a vendor id, and
 * the same for every nested archive, whose location is `<archive>!/<entry>`.
 */
export function parseJavaArchive(bytes: Uint8Array, path: string): PackageDatabase {
  const packages: LayerPackage[] = [];
  const errors: string[] = [];
  readArchive(bytes, path, 0, packages, errors);
  return { packages, errors };
}

function readArchive(
  bytes: Uint8Array,
  path: string,
  depth: number,
  packages: LayerPackage[],
  errors: string[],
): void {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(bytes, { filter: (file) => wanted(file, depth) });
  } catch (error) {
    errors.push(`${path}: not a readable zip archive: ${(error as Error).message}`);
    return;
  }
  const names = Object.keys(entries).sort();
  const poms = names.filter((name) => POM_PROPERTIES.test(name));
  for (const name of poms) {
    const found = fromPomProperties(text(entries[name]), path);
    if (found.error !== undefined) errors.push(`${path}!/${name}: ${found.error}`);
    else packages.push(found.value);
  }
  if (poms.length === 0 && entries[MANIFEST] !== undefined) {
    const found = fromManifest(text(entries[MANIFEST]), path);
    if (found !== undefined) packages.push(found);
  }
  for (const name of names) {
    if (isJavaArchivePath(name))
      readArchive(entries[name], `${path}!/${name}`, depth + 1, packages, errors);
  }
}

/** Metadata files always; nested archives while the depth allows; nothing that inflates far. */
function wanted(file: UnzipFileInfo, depth: number): boolean {
  if (file.originalSize > file.size * MAX_RATIO + 4096) return false;
  if (file.name === MANIFEST || POM_PROPERTIES.test(file.name)) {
    return file.originalSize <= MAX_METADATA_BYTES;
  }
  return depth < MAX_DEPTH && isJavaArchivePath(file.name) && file.originalSize <= MAX_NESTED_BYTES;
}

function text(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
}

/** `key=value` lines of a Java properties file (no continuations: Maven writes none). */
function properties(body: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith("!")) continue;
    const eq = line.search(/[=:]/);
    if (eq > 0) values.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  return values;
}

function fromPomProperties(
  body: string,
  path: string,
): { value: LayerPackage; error?: undefined } | { error: string } {
  const values = properties(body);
  const group = values.get("groupId");
  const artifact = values.get("artifactId");
  const version = values.get("version");
  if (!group || !artifact || !version) return { error: "no groupId, artifactId and version" };
  return mavenPackage(group, artifact, version, path);
}

/**
 * A manifest names an artefact only when it carries a vendor id (the group) and an
 * implementation title and version; titles are often prose ("Apache Commons Lang"), so
 * anything that is not a plain artefact id is left out rather than guessed.
 */
function fromManifest(body: string, path: string): LayerPackage | undefined {
  const values = manifestValues(body);
  const group = values.get("Implementation-Vendor-Id");
  const artifact = values.get("Implementation-Title");
  const version = values.get("Implementation-Version");
  if (!group || !artifact || !version || !/^[A-Za-z0-9_.-]+$/.test(artifact)) return undefined;
  const found = mavenPackage(group, artifact, version, path);
  return found.error === undefined ? found.value : undefined;
}

/** Manifest headers; a line starting with one space continues the one before. */
function manifestValues(body: string): Map<string, string> {
  const values = new Map<string, string>();
  let last = "";
  for (const line of body.split(/\r?\n/)) {
    if (line.startsWith(" ") && last !== "") {
      values.set(last, `${values.get(last)}${line.slice(1)}`);
      continue;
    }
    const colon = line.indexOf(": ");
    if (colon <= 0) continue;
    last = line.slice(0, colon);
    values.set(last, line.slice(colon + 2).trim());
  }
  return values;
}

function mavenPackage(
  group: string,
  artifact: string,
  version: string,
  path: string,
): { value: LayerPackage; error?: undefined } | { error: string } {
  const purl = formatPurl({ type: "maven", namespace: group, name: artifact, version });
  if (purl.error !== undefined) return { error: purl.error };
  return {
    value: {
      name: `${group}:${artifact}`,
      version,
      purl: purl.value,
      ecosystem: "Maven",
      licence: undefined,
      source: path,
    },
  };
}
