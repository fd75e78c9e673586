import { normalizePythonName, normalizePythonVersion } from "../../../libraries/index.ts";

/** What kind of distribution a file is, from its name. */
export type PythonFileKind = "wheel" | "sdist";

/** The distribution types twine names in `filetype`, and the kind of file each may be. */
export const fileTypes: Readonly<Record<string, PythonFileKind>> = {
  bdist_wheel: "wheel",
  sdist: "sdist",
};

const sdistSuffixes = [".tar.gz", ".zip"];

/**
 * Checks that `filename` is a distribution of `project` (PEP 503-normalised) at `version`
 * (PEP 440-normalised): a wheel `{name}-{ver}(-{build})?-{py}-{abi}-{plat}.whl` whose name is the
 * project's with `-` escaped as `_`, or an sdist `{name}-{ver}.tar.gz` / `.zip`.
 */
export function checkPythonFileName(
  filename: string,
  kind: PythonFileKind,
  project: string,
  version: string,
): { value?: true; error?: string } {
  if (kind === "wheel") {
    if (!filename.endsWith(".whl"))
      return { error: `a wheel's file name ends in .whl: ${filename}` };
    const parts = filename.slice(0, -4).split("-");
    if (parts.length !== 5 && parts.length !== 6) {
      return {
        error: `wheel file name ${filename} is not {name}-{version}(-{build})?-{python}-{abi}-{platform}.whl`,
      };
    }
    if (parts.some((p) => p.length === 0))
      return { error: `wheel file name ${filename} has an empty part` };
    if (parts.length === 6 && !/^[0-9]/.test(parts[2])) {
      return { error: `the build tag of ${filename} does not start with a digit` };
    }
    if (normalizePythonName(parts[0]) !== project) {
      return { error: `wheel ${filename} is not a file of project ${project}` };
    }
    if (normalizePythonVersion(parts[1]).value !== version) {
      return { error: `wheel ${filename} is not a file of version ${version}` };
    }
    return { value: true };
  }
  const suffix = sdistSuffixes.find((s) => filename.toLowerCase().endsWith(s));
  if (!suffix) return { error: `an sdist's file name ends in .tar.gz or .zip: ${filename}` };
  const stem = filename.slice(0, -suffix.length);
  // Old sdists keep `-` in the name ("foo-bar-1.0"): some split must give the name and version.
  for (let at = stem.indexOf("-"); at > 0; at = stem.indexOf("-", at + 1)) {
    if (normalizePythonName(stem.slice(0, at)) !== project) continue;
    if (normalizePythonVersion(stem.slice(at + 1)).value === version) return { value: true };
  }
  return { error: `sdist ${filename} is not {name}-{version} of ${project} ${version}` };
}
