export {
  createLibrariesDoor,
  type LibrariesDoor,
  type LibrariesDoorOptions,
} from "./libraries-door.ts";
// The file-level checks of each repository, for `lading admin import libraries` (through app).
export { isSnapshot, parseMavenPath } from "./maven/maven-path.ts";
export { publishMavenFile } from "./maven/maven-publish.ts";
export { maxPomPrefix, pomDescription } from "./maven/pom-description.ts";
export { parseNpmName } from "./npm/npm-name.ts";
export { tarballName } from "./npm/packument.ts";
export { packageDescription, storedManifest } from "./npm/publish-document.ts";
export { inspectTarball } from "./npm/tarball-inspector.ts";
export { checkDistribution } from "./python/check-distribution.ts";
export { checkPythonFileName, type PythonFileKind } from "./python/python-file-name.ts";
