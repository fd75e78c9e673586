/** Longest package name npm accepts. */
const maxNameLength = 214;

// One segment of a new-style npm name: lower case, URL-safe, not starting with `.` or `_`.
// `~`, which npm allows, is refused: artifact uids write the scope's `/` as `~`.
const segment = /^[a-z0-9-][a-z0-9._-]*$/;

/** A package name as npm writes it, `name` or `@scope/name`, or why it is not one. */
export function parseNpmName(text: string): { value?: string; error?: string } {
  if (text.length === 0) return { error: "package name is empty" };
  if (text.length > maxNameLength) {
    return { error: `package name is longer than ${maxNameLength} characters` };
  }
  const scoped = text.startsWith("@");
  const slash = text.indexOf("/");
  if (scoped !== slash >= 0) return { error: `"${text}" is not a package name` };
  const parts = scoped ? [text.slice(1, slash), text.slice(slash + 1)] : [text];
  if (!parts.every((p) => segment.test(p))) {
    return {
      error: `"${text}" is not a package name: lower-case letters, digits, "-", "." and "_"`,
    };
  }
  return { value: text };
}

/** The name's last part: `pkg` of `@scope/pkg`; npm names tarballs `<last part>-<version>.tgz`. */
export function unscopedName(name: string): string {
  return name.slice(name.indexOf("/") + 1);
}

/**
 * A request path after the organisation, split into the package name (npm sends a scoped
 * name as one segment `@scope%2fname`; two segments `@scope/name` are accepted too) and what
 * follows it, each segment decoded; an error when a segment's encoding is broken.
 */
export function splitPackagePath(
  rest: string,
): { name: string; tail: string[] } | { error: string } {
  let parts: string[];
  try {
    parts = rest
      .split("/")
      .slice(1)
      .map((p) => decodeURIComponent(p));
  } catch {
    return { error: "the path is not percent-encoded correctly" };
  }
  const first = parts[0] ?? "";
  if (first.startsWith("@") && !first.includes("/") && parts.length > 1) {
    return { name: `${first}/${parts[1]}`, tail: parts.slice(2) };
  }
  return { name: first, tail: parts.slice(1) };
}
