import { APK_INSTALLED_PATH, parseApkInstalled } from "./apk-installed.ts";
import { isDpkgStatusPath, parseDpkgStatus } from "./dpkg-status.ts";
import { isJavaArchivePath, parseJavaArchive } from "./java-archive.ts";
import type { PackageDatabase } from "./layer-package.ts";
import {
  isNodeApplicationPath,
  isNodePackagePath,
  parseNodeApplication,
  parseNodePackage,
} from "./node-package.ts";
import { isNpmLockPath, parseNpmLock } from "./npm-lock.ts";
import { type Distro, OS_RELEASE_PATHS } from "./os-release.ts";
import { isPythonDistInfoPath, parsePythonDistInfo } from "./python-dist-info.ts";
import {
  isRpmBerkeleyPath,
  isRpmSqlitePath,
  parseRpmBerkeley,
  parseRpmSqlite,
} from "./rpm-database.ts";
import { isRubyGemspecPath, parseRubyGemspec } from "./ruby-gemspec.ts";

/** A kind of package database: which files are one, and how to read them. */
export interface PackageDatabaseReader {
  matches: (path: string) => boolean;
  /** `distro` is the image's os-release; language ecosystems ignore it. */
  parse: (bytes: Buffer, path: string, distro: Distro | undefined) => PackageDatabase;
}

/** Every package database a layer scan reads. */
export const PACKAGE_DATABASES: readonly PackageDatabaseReader[] = [
  { matches: (path) => path === APK_INSTALLED_PATH, parse: textual(parseApkInstalled) },
  { matches: isDpkgStatusPath, parse: textual(parseDpkgStatus) },
  { matches: isPythonDistInfoPath, parse: textual(parsePythonDistInfo) },
  { matches: isNodePackagePath, parse: textual(parseNodePackage) },
  { matches: isNodeApplicationPath, parse: textual(parseNodeApplication) },
  { matches: isNpmLockPath, parse: textual(parseNpmLock) },
  { matches: isJavaArchivePath, parse: (bytes, path) => parseJavaArchive(bytes, path) },
  { matches: isRpmSqlitePath, parse: parseRpmSqlite },
  { matches: isRpmBerkeleyPath, parse: parseRpmBerkeley },
  { matches: isRubyGemspecPath, parse: textual(parseRubyGemspec) },
];

/** A reader of a text database, given the file's bytes. */
function textual(
  parse: (text: string, path: string, distro?: Distro) => PackageDatabase,
): PackageDatabaseReader["parse"] {
  return (bytes, path, distro) => parse(bytes.toString("utf8"), path, distro);
}

/** The reader for a path, or undefined when it is no package database. */
export function readerFor(path: string): PackageDatabaseReader | undefined {
  return PACKAGE_DATABASES.find((reader) => reader.matches(path));
}

/** The files a package scan wants from the layers: the databases and os-release. */
export function isPackageScanPath(path: string): boolean {
  return OS_RELEASE_PATHS.includes(path) || readerFor(path) !== undefined;
}
