import { DatabaseSync } from "node:sqlite";
import {
  distroQualifier,
  formatPurl,
  type LayerPackage,
  type PackageDatabase,
} from "./layer-package.ts";
import type { Distro } from "./os-release.ts";
import { readBerkeleyHashValues } from "./rpm-berkeley.ts";
import { parseRpmHeader, type RpmHeader } from "./rpm-header.ts";

/** Where rpm ≥ 4.16 keeps its SQLite database (Fedora ≥ 33, RHEL/UBI 9, Amazon Linux 2023). */
export const RPM_SQLITE_PATHS: readonly string[] = [
  "var/lib/rpm/rpmdb.sqlite",
  "usr/lib/sysimage/rpm/rpmdb.sqlite",
];

/** An rpmdb with more installed packages than this is read up to it, with an error. */
const MAX_PACKAGES = 100_000;

/** Distributions whose packages rpm records: the purl namespace each is written under. */
const RPM_VENDORS: Readonly<Record<string, string>> = {
  fedora: "fedora",
  rhel: "redhat",
  centos: "centos",
  rocky: "rocky",
  almalinux: "almalinux",
  amzn: "amazon",
  ol: "oracle",
  "opensuse-leap": "opensuse",
  "opensuse-tumbleweed": "opensuse",
  sles: "suse",
};

/** OSV's ecosystem names for the rpm distributions OSV has advisories of. */
const OSV_ECOSYSTEMS: Readonly<Record<string, string>> = {
  redhat: "Red Hat",
  almalinux: "AlmaLinux",
  rocky: "Rocky Linux",
  opensuse: "openSUSE",
  suse: "SUSE",
};

/** rpm before 4.16 (RHEL 7/8, CentOS 7/8, Amazon Linux 2): a Berkeley DB hash database. */
export const RPM_BERKELEY_PATH = "var/lib/rpm/Packages";

/** Whether a path is an rpm Berkeley DB database. */
export function isRpmBerkeleyPath(path: string): boolean {
  return path === RPM_BERKELEY_PATH;
}

/**
 * Reads an rpm Berkeley DB `Packages` file: its values are the same header blobs as the SQLite
 * database's. The record rpm keeps under key 0 (the next package number, 4 bytes) is no header
 * and is passed over, as is anything shorter than a header's preamble and one entry.
 */
export function parseRpmBerkeley(bytes: Buffer, path: string, distro?: Distro): PackageDatabase {
  const values = readBerkeleyHashValues(bytes);
  if (values.error !== undefined) return { packages: [], errors: [`${path}: ${values.error}`] };
  const blobs = values.value.filter((blob) => blob.length >= 24);
  const rows = blobs.slice(0, MAX_PACKAGES).map((blob, i) => ({ hnum: i + 1, blob }));
  const read = packagesOf(rows, path, distro);
  if (blobs.length > MAX_PACKAGES) {
    read.errors.unshift(`${path}: more than ${MAX_PACKAGES} packages, the rest not read`);
  }
  return read;
}

/** Whether a path is an rpm SQLite database. */
export function isRpmSqlitePath(path: string): boolean {
  return RPM_SQLITE_PATHS.includes(path);
}

/**
 * Reads an rpm SQLite database from its bytes, in memory (a deserialized copy): the `Packages` table holds one rpm
 * header blob per installed package. rpm writes the file in WAL mode, which a deserialized
 * database cannot open, so a copy is marked as a rollback-journal file first (header bytes
 * 18–19); the WAL itself is not read (rpm checkpoints it when a transaction ends).
 */
export function parseRpmSqlite(bytes: Buffer, path: string, distro?: Distro): PackageDatabase {
  const blobs = readBlobs(bytes);
  if (blobs.error !== undefined) return { packages: [], errors: [`${path}: ${blobs.error}`] };
  const read = packagesOf(blobs.value, path, distro);
  if (blobs.truncated) {
    read.errors.unshift(`${path}: more than ${MAX_PACKAGES} packages, the rest not read`);
  }
  return read;
}

type Rows = { hnum: number; blob: Buffer }[];

/** The packages of header blobs; `hnum` names a blob in errors. */
function packagesOf(rows: Rows, path: string, distro: Distro | undefined): PackageDatabase {
  const errors: string[] = [];
  const packages: LayerPackage[] = [];
  for (const { hnum, blob } of rows) {
    const header = parseRpmHeader(blob);
    if (header.error !== undefined) {
      errors.push(`${path}: package ${hnum}: ${header.error}`);
      continue;
    }
    const read = rpmPackage(header.value, path, distro);
    if (read.error !== undefined) errors.push(`${path}: package ${hnum}: ${read.error}`);
    else if (read.value) packages.push(read.value);
  }
  return { packages, errors };
}

function readBlobs(
  bytes: Buffer,
): { value: Rows; truncated: boolean; error?: undefined } | { error: string } {
  if (bytes.length < 100 || bytes.toString("latin1", 0, 16) !== "SQLite format 3\0") {
    return { error: "not an SQLite database" };
  }
  const copy = Buffer.from(bytes);
  copy[18] = 1;
  copy[19] = 1;
  let db: DatabaseSync | undefined;
  try {
    // The file comes from an image: defensive mode (SQLITE_DBCONFIG_DEFENSIVE) takes away the
    // ways SQL has to corrupt a database, and query_only any write (a deserialized copy is
    // writable).
    db = new DatabaseSync(":memory:", { defensive: true });
    db.deserialize(copy);
    db.exec("PRAGMA query_only = ON");
    // A view or virtual table named Packages could make one SELECT do unbounded work.
    const table = db
      .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'Packages'")
      .get() as { sql?: string } | undefined;
    if (!table?.sql || !/^CREATE TABLE\b/i.test(table.sql)) {
      return { error: "no Packages table" };
    }
    const rows = db
      .prepare("SELECT hnum, blob FROM Packages ORDER BY hnum LIMIT ?")
      .all(MAX_PACKAGES + 1) as { hnum: unknown; blob: unknown }[];
    const value: Rows = [];
    for (const row of rows.slice(0, MAX_PACKAGES)) {
      // node:sqlite reads a BLOB as a Uint8Array; the header parser reads a Buffer (a view).
      if (typeof row.hnum === "number" && row.blob instanceof Uint8Array) {
        value.push({
          hnum: row.hnum,
          blob: Buffer.from(row.blob.buffer, row.blob.byteOffset, row.blob.byteLength),
        });
      }
    }
    return { value, truncated: rows.length > MAX_PACKAGES };
  } catch (error) {
    return { error: `unreadable rpm database: ${(error as Error).message}` };
  } finally {
    db?.close();
  }
}

/**
 * One installed package. The `gpg-pubkey` pseudo-packages rpm records for imported signing keys
 * are not software and are left out, as other scanners do.
 */
export function rpmPackage(
  header: RpmHeader,
  path: string,
  distro: Distro | undefined,
): { value: LayerPackage | undefined; error?: undefined } | { error: string } {
  const { name, version, release } = header;
  if (!name || !version || !release) {
    return { error: `header has no ${!name ? "name" : !version ? "version" : "release"}` };
  }
  if (name === "gpg-pubkey") return { value: undefined };
  const vendor = rpmVendor(distro);
  const upstream = header.sourceRpm && header.sourceRpm !== "(none)" ? header.sourceRpm : undefined;
  const epoch = header.epoch === undefined ? undefined : String(header.epoch);
  const purl = formatPurl({
    type: "rpm",
    namespace: vendor,
    name,
    version: `${version}-${release}`,
    qualifiers: {
      arch: header.arch,
      distro: vendor === undefined ? undefined : distroQualifier(distro, [distro?.id ?? ""]),
      epoch,
      upstream,
    },
  });
  if (purl.error !== undefined) return { error: purl.error };
  return {
    value: {
      name,
      version: `${epoch === undefined ? "" : `${epoch}:`}${version}-${release}`,
      purl: purl.value,
      ecosystem: (vendor && OSV_ECOSYSTEMS[vendor]) ?? "RPM",
      licence: header.license || undefined,
      ...(upstream ? { origin: sourceName(upstream) } : {}),
      source: path,
    },
  };
}

/**
 * The purl namespace of the image's distribution: its vendor for the known ones, its own ID for
 * a derivative (`ID_LIKE` naming one), undefined when the image is no rpm distribution.
 */
function rpmVendor(distro: Distro | undefined): string | undefined {
  if (distro === undefined) return undefined;
  if (Object.hasOwn(RPM_VENDORS, distro.id)) return RPM_VENDORS[distro.id];
  return distro.idLike.some((id) => Object.hasOwn(RPM_VENDORS, id)) ? distro.id : undefined;
}

/** `glibc-2.39-17.fc40.src.rpm` → `glibc`: the name before version and release. */
function sourceName(sourceRpm: string): string {
  const parts = sourceRpm.replace(/\.(?:no)?src\.rpm$/, "").split("-");
  return parts.length > 2 ? parts.slice(0, -2).join("-") : sourceRpm;
}
