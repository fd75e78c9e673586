import { compileSafePattern, type PatternMatcher } from "../auth/index.ts";

/** Longest tag glob, in characters (a tag name is at most 128). */
export const maxTagPatternLength = 128;

const GLOB = /^[a-zA-Z0-9_.*?-]+$/;

/**
 * Parses a tag glob: letters, digits, `_ . -`, `*` for any run of characters and `?` for one.
 * It compiles to RE2 through the safe-pattern tools, so matching stays linear in the tag name.
 */
export function parseTagPattern(glob: string): { value?: PatternMatcher; error?: string } {
  if (glob.length === 0 || glob.length > maxTagPatternLength) {
    return { error: `must be 1 to ${maxTagPatternLength} characters` };
  }
  if (!GLOB.test(glob)) {
    return { error: "may hold only letters, digits, _ . - and the wildcards * and ?" };
  }
  const re2 = glob.replaceAll(".", "\\.").replaceAll("*", ".*").replaceAll("?", ".");
  const compiled = compileSafePattern(re2);
  return compiled.error ? { error: compiled.error } : { value: compiled.value };
}

/** True when tag `name` matches glob `pattern`; a pattern that cannot parse matches nothing. */
export function tagMatches(pattern: string, name: string): boolean {
  const parsed = parseTagPattern(pattern);
  return parsed.value ? parsed.value(name) : false;
}
