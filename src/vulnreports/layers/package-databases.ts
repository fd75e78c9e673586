import { APK_INSTALLED_PATH, parseApkInstalled } from "./apk-installed.ts";
import { isDpkgStatusPath, parseDpkgStatus } from "./dpkg-status.ts";
import type { PackageDatabase } from "./layer-package.ts";
import {
  isNodeApplicationPath,
  isNodePackagePath,
  parseNodeApplication,
  parseNodePackage,
} from "./node-package.ts";
import { type Distro, OS_RELEASE_PATHS } from "./os-release.ts";
import { isPythonDistInfoPath, parsePythonDistInfo } from "./python-dist-info.ts";

/** A kind of package database: which files are one, and how to read them. */
export interface PackageDatabaseReader {
  matches: (path: string) => boolean;
  /** `distro` is the image's os-release; language ecosystems ignore it. */
  parse: (text: string, path: string, distro: Distro | undefined) => PackageDatabase;
}

/** Every package database a layer scan reads. */
export const PACKAGE_DATABASES: readonly PackageDatabaseReader[] = [
  { matches: (path) => path === APK_INSTALLED_PATH, parse: parseApkInstalled },
  { matches: isDpkgStatusPath, parse: parseDpkgStatus },
  { matches: isPythonDistInfoPath, parse: (text, path) => parsePythonDistInfo(text, path) },
  { matches: isNodePackagePath, parse: (text, path) => parseNodePackage(text, path) },
  { matches: isNodeApplicationPath, parse: (text, path) => parseNodeApplication(text, path) },
];

/** The reader for a path, or undefined when it is no package database. */
export function readerFor(path: string): PackageDatabaseReader | undefined {
  return PACKAGE_DATABASES.find((reader) => reader.matches(path));
}

/** The files a package scan wants from the layers: the databases and os-release. */
export function isPackageScanPath(path: string): boolean {
  return OS_RELEASE_PATHS.includes(path) || readerFor(path) !== undefined;
}
