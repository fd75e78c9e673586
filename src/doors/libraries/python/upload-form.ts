import { normalizePythonName, normalizePythonVersion } from "../../../libraries/index.ts";
import type { FormFields } from "./multipart-form.ts";
import { checkPythonFileName, fileTypes, type PythonFileKind } from "./python-file-name.ts";

/** An upload's fields, checked. */
export interface UploadForm {
  /** As the uploader spelled it (the display name). */
  name: string;
  /** PEP 503-normalised. */
  project: string;
  /** PEP 440-normalised. */
  version: string;
  filetype: string;
  kind: PythonFileKind;
  pyversion: string;
  summary: string;
  requiresPython: string;
  /** Declared hex digests. */
  sha256?: string;
  md5?: string;
}

const projectName = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;
const maxNameLength = 200;

/** Declared digests the repository checks, with their hex length. */
const digestFields = { sha256_digest: 64, md5_digest: 32 } as const;

/**
 * Checks the fields of a `twine upload` (the legacy upload API) and that `filename` is a file of
 * the named project and version; says which field is wrong otherwise.
 */
export function parseUploadForm(
  fields: FormFields,
  filename: string,
): { value?: UploadForm; error?: string } {
  const one = (key: string) => fields.get(key)?.[0]?.trim() ?? "";
  const action = one(":action");
  if (action !== "file_upload") {
    return { error: `:action must be file_upload${action ? `, not ${action}` : ""}` };
  }
  if (one("protocol_version") !== "1") return { error: "protocol_version must be 1" };
  const name = one("name");
  if (name === "") return { error: "name is missing" };
  if (name.length > maxNameLength || !projectName.test(name)) {
    return { error: `name "${name.slice(0, maxNameLength)}" is not a valid project name` };
  }
  const rawVersion = one("version");
  if (rawVersion === "") return { error: "version is missing" };
  const version = normalizePythonVersion(rawVersion);
  if (version.value === undefined) {
    return {
      error: `version "${rawVersion.slice(0, 100)}" is not a PEP 440 version: ${version.error}`,
    };
  }
  const filetype = one("filetype");
  const kind = fileTypes[filetype];
  if (kind === undefined) {
    return { error: `filetype must be bdist_wheel or sdist${filetype ? `, not ${filetype}` : ""}` };
  }
  const summary = one("summary");
  if (summary.length > 512 || /[\r\n]/.test(summary)) {
    return { error: "summary must be one line of at most 512 characters" };
  }
  const requiresPython = one("requires_python");
  if (requiresPython.length > 1000)
    return { error: "requires_python is longer than 1000 characters" };
  const pyversion = one("pyversion");
  if (pyversion.length > 100) return { error: "pyversion is longer than 100 characters" };
  const digests: Partial<Record<keyof typeof digestFields, string>> = {};
  for (const [field, length] of Object.entries(digestFields) as [
    keyof typeof digestFields,
    number,
  ][]) {
    const value = one(field).toLowerCase();
    if (value === "") continue;
    if (value.length !== length || !/^[0-9a-f]+$/.test(value)) {
      return { error: `${field} is not ${length} hexadecimal digits` };
    }
    digests[field] = value;
  }
  if (!digests.sha256_digest && !digests.md5_digest) {
    return { error: "sha256_digest (or md5_digest) is required" };
  }
  const project = normalizePythonName(name);
  const file = checkPythonFileName(filename, kind, project, version.value);
  if (file.error !== undefined) return { error: file.error };
  return {
    value: {
      name,
      project,
      version: version.value,
      filetype,
      kind,
      pyversion,
      summary,
      requiresPython,
      sha256: digests.sha256_digest,
      md5: digests.md5_digest,
    },
  };
}
