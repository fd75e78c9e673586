/** The distribution an image is built on, from its os-release file. */
export interface Distro {
  /** `ID=`, lowercased (`alpine`, `wolfi`, `debian`, `ubuntu`, …). */
  id: string;
  /** `VERSION_ID=`, when present. */
  versionId?: string;
  /** `ID_LIKE=`, split on spaces. */
  idLike: string[];
}

/**
 * The os-release paths in the order the os-release spec reads them: `/etc/os-release` is often
 * a symlink to the `usr/lib` one, and symlinks are not followed, so both are wanted.
 */
export const OS_RELEASE_PATHS: readonly string[] = ["etc/os-release", "usr/lib/os-release"];

/**
 * Reads an os-release file (shell-style `KEY=value` lines). Returns undefined when it has no
 * `ID=`: the distribution is then unknown rather than guessed.
 */
export function parseOsRelease(text: string): Distro | undefined {
  const values = new Map<string, string>();
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    values.set(line.slice(0, eq), unquote(line.slice(eq + 1)));
  }
  const id = values.get("ID")?.toLowerCase();
  if (!id) return undefined;
  const versionId = values.get("VERSION_ID");
  return {
    id,
    ...(versionId ? { versionId } : {}),
    idLike: (values.get("ID_LIKE") ?? "").toLowerCase().split(/\s+/).filter(Boolean),
  };
}

/** The first os-release in spec order among the files read, parsed. */
export function distroOf(files: ReadonlyMap<string, Buffer>): Distro | undefined {
  for (const path of OS_RELEASE_PATHS) {
    const bytes = files.get(path);
    if (bytes !== undefined) return parseOsRelease(bytes.toString("utf8"));
  }
  return undefined;
}

/** A value without its shell quotes; backslash escapes only mean something inside "…". */
function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    return value.slice(1, -1).replace(/\\(["\\`$])/g, "$1");
  }
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) {
    return value.slice(1, -1);
  }
  return value;
}
