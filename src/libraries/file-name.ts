/** Longest file name a library repository stores. */
const maxFileNameLength = 255;

/**
 * A file name as stored and served: one path segment of printable characters, not `.` or `..`,
 * without `/`, `\` or `:`, so it never escapes its version's folder in a mirror or a URL.
 */
export function parseFileName(text: string): { value?: string; error?: string } {
  if (text.length === 0) return { error: "file name is empty" };
  if (text.length > maxFileNameLength) {
    return { error: `file name is longer than ${maxFileNameLength} characters` };
  }
  if (text === "." || text === "..") return { error: `file name "${text}" is a path` };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (/[/\\:\u0000-\u001f\u007f]/.test(text)) {
    return { error: `file name "${text}" contains a path separator or control character` };
  }
  return { value: text };
}
