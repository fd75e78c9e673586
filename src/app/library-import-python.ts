import { basename } from "node:path";
import {
  checkDistribution,
  checkPythonFileName,
  type PythonFileKind,
} from "../doors/libraries/index.ts";
import {
  artifactUid,
  normalizePythonName,
  normalizePythonVersion,
  parseFileName,
  publishVersion,
} from "../libraries/index.ts";
import {
  comparePublished,
  type FileOutcome,
  type LibraryImportContext,
  type MirrorFile,
  publishOutcome,
  refused,
  repositoryUrl,
  storeMirrorFile,
} from "./library-import-file.ts";

/** The project and version a distribution's file name declares. */
interface PythonIdentity {
  kind: PythonFileKind;
  /** As the file name writes it: the display name when the archive says nothing better. */
  name: string;
  project: string;
  version: string;
  /** A wheel's python tag (`py3`), `source` for an sdist: twine's `pyversion`. */
  pythonVersion: string;
}

/** The file's kind by its suffix; undefined when it is no distribution. */
export function pythonFileKind(filename: string): PythonFileKind | undefined {
  const lower = filename.toLowerCase();
  if (lower.endsWith(".whl")) return "wheel";
  if (lower.endsWith(".tar.gz") || lower.endsWith(".zip")) return "sdist";
  return undefined;
}

/** The project and version a wheel's or sdist's file name gives, or why it gives none. */
export function pythonFileIdentity(
  filename: string,
  kind: PythonFileKind,
): { value?: PythonIdentity; error?: string } {
  if (kind === "wheel") {
    const parts = filename.slice(0, -4).split("-");
    const version = normalizePythonVersion(parts[1] ?? "");
    if (parts.length < 5 || version.value === undefined) {
      return {
        error: `${filename} is not {name}-{version}(-{build})?-{python}-{abi}-{platform}.whl`,
      };
    }
    return {
      value: {
        kind,
        name: parts[0],
        project: normalizePythonName(parts[0]),
        version: version.value,
        pythonVersion: parts[parts.length - 3],
      },
    };
  }
  const stem = filename.slice(0, filename.toLowerCase().endsWith(".zip") ? -4 : -7);
  // Names may hold `-` ("foo-bar-1.0"), versions do not: the last split giving a version wins.
  for (let at = stem.lastIndexOf("-"); at > 0; at = stem.lastIndexOf("-", at - 1)) {
    const version = normalizePythonVersion(stem.slice(at + 1));
    if (version.value === undefined) continue;
    const name = stem.slice(0, at);
    return {
      value: {
        kind,
        name,
        project: normalizePythonName(name),
        version: version.value,
        pythonVersion: "source",
      },
    };
  }
  return { error: `sdist ${filename} is not {name}-{version}.tar.gz or .zip` };
}

/**
 * Imports a wheel or sdist with the checks a twine upload gets: the file name names a project
 * and version (PEP 503 / PEP 440), the archive is readable, and a wheel's METADATA names the
 * same project and version; its Summary and Requires-Python are kept as an upload's fields.
 */
export async function importPythonFile(
  ctx: LibraryImportContext,
  file: MirrorFile,
): Promise<FileOutcome> {
  const filename = basename(file.relative);
  const kind = pythonFileKind(filename);
  if (!kind) return { kind: "skipped", reason: "not a wheel or sdist (.whl, .tar.gz, .zip)" };
  const checkedName = parseFileName(filename);
  if (checkedName.error !== undefined) return refused(checkedName.error);
  const id = pythonFileIdentity(filename, kind);
  if (id.value === undefined) return refused(id.error ?? "bad file name");
  const { project, version } = id.value;
  const named = checkPythonFileName(filename, kind, project, version);
  if (named.error !== undefined) return refused(named.error);
  const uid = artifactUid("python", ctx.orgUid, project);
  const published = await comparePublished(ctx, file, uid, filename);
  if (published) return published;
  const stored = await storeMirrorFile(ctx, file);
  const facts = await checkDistribution(
    ctx.blobs,
    { digest: stored.digest, size: stored.size, filename, kind },
    project,
    version,
    ctx.maxFileBytes * 8,
  );
  if (facts.value === undefined) return refused(facts.error ?? "bad distribution");
  const summary = facts.value.summary ?? "";
  const requiresPython = facts.value.requiresPython ?? "";
  return publishOutcome(uid, () =>
    publishVersion(ctx.db, {
      orgUid: ctx.orgUid,
      ecosystem: "python",
      name: project,
      displayName: facts.value?.name || id.value?.name || project,
      version,
      description: summary,
      metadata: { summary, requires_python: requiresPython },
      files: [
        {
          filename,
          stored,
          contentType: "application/octet-stream",
          metadata: {
            packagetype: kind === "wheel" ? "bdist_wheel" : "sdist",
            python_version: id.value?.pythonVersion,
            requires_python: requiresPython,
          },
        },
      ],
      // A wheel and an sdist of one version are two files of it, whichever comes first.
      addToExisting: true,
      actor: ctx.actor,
      source: repositoryUrl(ctx, "python"),
    }),
  );
}
