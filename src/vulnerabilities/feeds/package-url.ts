/** The parts of a package URL (purl-spec), percent-decoded. */
export interface PackageUrl {
  /** Lowercased, as purl types are case-insensitive. */
  type: string;
  /** The segments before the name joined with `/`, or undefined. */
  namespace?: string;
  name: string;
  version?: string;
  /** Keys lowercased. */
  qualifiers: Record<string, string>;
  subpath?: string;
}

/**
 * Reads `pkg:type/namespace/name@version?qualifiers#subpath`. Returns undefined for text that
 * is not a package URL. The version is split at the last `@` so that an unencoded npm scope
 * (`pkg:npm/@scope/name@1.0`), common in the wild, still reads right.
 */
export function parsePackageUrl(text: string): PackageUrl | undefined {
  if (!/^pkg:/i.test(text)) return undefined;
  let rest = text.slice(4).replace(/^\/+/, "");
  let subpath: string | undefined;
  const hash = rest.indexOf("#");
  if (hash >= 0) {
    subpath = decode(rest.slice(hash + 1).replace(/^\/+|\/+$/g, ""));
    rest = rest.slice(0, hash);
  }
  const qualifiers: Record<string, string> = {};
  const question = rest.indexOf("?");
  if (question >= 0) {
    for (const pair of rest.slice(question + 1).split("&")) {
      const eq = pair.indexOf("=");
      if (eq <= 0) continue;
      const value = decode(pair.slice(eq + 1));
      if (value === undefined || value === "") continue;
      qualifiers[pair.slice(0, eq).toLowerCase()] = value;
    }
    rest = rest.slice(0, question);
  }
  const slash = rest.indexOf("/");
  if (slash <= 0) return undefined;
  const type = rest.slice(0, slash).toLowerCase();
  if (!/^[a-z.+-][a-z0-9.+-]*$/.test(type)) return undefined;
  let path = rest.slice(slash + 1);
  let version: string | undefined;
  const at = path.lastIndexOf("@");
  if (at > 0 && path[at - 1] !== "/") {
    version = decode(path.slice(at + 1));
    path = path.slice(0, at);
  }
  const segments = path.split("/").filter((s) => s !== "");
  const decoded = segments.map(decode);
  if (decoded.length === 0 || decoded.some((s) => s === undefined)) return undefined;
  const name = decoded.pop() as string;
  if (name === "") return undefined;
  return {
    type,
    namespace: decoded.length > 0 ? decoded.join("/") : undefined,
    name,
    version: version === "" ? undefined : version,
    qualifiers,
    subpath: subpath === "" ? undefined : subpath,
  };
}

/** A percent-decoded segment, or undefined for a broken escape. */
function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * The package's name as its ecosystem writes it: Maven `group:artifact` (as OSV names it),
 * distribution packages (apk, deb, rpm, alpm) without the vendor namespace, everything else
 * `namespace/name` (Go module paths, npm scopes, image repositories).
 */
export function packageName(purl: PackageUrl): string {
  if (purl.namespace === undefined || DISTRO_TYPES.has(purl.type)) return purl.name;
  return purl.type === "maven"
    ? `${purl.namespace}:${purl.name}`
    : `${purl.namespace}/${purl.name}`;
}

const DISTRO_TYPES = new Set(["apk", "deb", "rpm", "alpm"]);
