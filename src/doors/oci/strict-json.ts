/** A JSON document read by {@link parseStrictJson}. */
export interface StrictJson {
  value: unknown;
  /**
   * The source text of each top-level member whose value is a number, string, `true`, `false`
   * or `null` (`"2"`, `"2.0"`, `"2e308"` stay distinct), when the document is an object.
   */
  topLevelSource: Map<string, string>;
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Parses `bytes` as JSON that every parser reads the same way: strict UTF-8 (invalid bytes and
 * a byte order mark are refused rather than replaced or skipped), no object with two keys that
 * are equal once unescaped or once case-folded (Go's encoding/json, which most registry
 * clients use, matches struct fields case-insensitively and keeps the last; JavaScript keeps
 * the last exact match), no escaped lone surrogate (Go turns each into U+FFFD, which makes
 * distinct keys equal there), and at most `maxDepth` nested objects and arrays. One pass over
 * the text with an explicit stack, so the time is linear and the call stack flat.
 */
export function parseStrictJson(
  bytes: Uint8Array,
  maxDepth: number,
): { value: StrictJson; error: undefined } | { value: undefined; error: string } {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { value: undefined, error: "the body is not valid UTF-8" };
  }
  const scanned = scan(text, maxDepth);
  if (scanned.error !== undefined) return { value: undefined, error: scanned.error };
  try {
    return {
      value: { value: JSON.parse(text), topLevelSource: scanned.topLevel },
      error: undefined,
    };
  } catch {
    return { value: undefined, error: "the body is not JSON" };
  }
}

/** An open object (its keys as written and case-folded) or array (no key sets). */
type Frame = { keys: Set<string>; folded: Set<string>; expectKey: boolean } | { keys: undefined };

const isDelimiter = (c: number) =>
  c === 0x2c || c === 0x5d || c === 0x7d || c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/**
 * Walks the JSON text once. Text that is not JSON may pass (JSON.parse refuses it next) but
 * never loops or recurses.
 */
function scan(
  text: string,
  maxDepth: number,
): { topLevel: Map<string, string>; error: undefined } | { topLevel: undefined; error: string } {
  const topLevel = new Map<string, string>();
  const stack: Frame[] = [];
  let memberKey: string | undefined;
  const fail = (error: string) => ({ topLevel: undefined, error });
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === 0x7b || c === 0x5b) {
      if (stack.length >= maxDepth) return fail(`objects and arrays nest deeper than ${maxDepth}`);
      stack.push(
        c === 0x7b ? { keys: new Set(), folded: new Set(), expectKey: true } : { keys: undefined },
      );
      i++;
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
      i++;
    } else if (c === 0x2c) {
      if (top?.keys) top.expectKey = true;
      i++;
    } else if (c === 0x22) {
      let end = i + 1;
      let escaped = false;
      while (end < text.length && text.charCodeAt(end) !== 0x22) {
        if (text.charCodeAt(end) === 0x5c) {
          escaped = true;
          end++;
        }
        end++;
      }
      const token = text.slice(i, end + 1);
      let decoded: string;
      try {
        decoded = escaped ? (JSON.parse(token) as string) : token.slice(1, -1);
      } catch {
        return fail("the body is not JSON");
      }
      if (!decoded.isWellFormed()) return fail("a string holds an escaped lone surrogate");
      if (top?.keys && top.expectKey) {
        const folded = decoded.toUpperCase().toLowerCase();
        if (top.keys.has(decoded))
          return fail(`duplicate key ${JSON.stringify(decoded.slice(0, 128))}`);
        if (top.folded.has(folded)) {
          return fail(`keys differing only in case: ${JSON.stringify(decoded.slice(0, 128))}`);
        }
        top.keys.add(decoded);
        top.folded.add(folded);
        top.expectKey = false;
        if (stack.length === 1) memberKey = decoded;
      } else if (stack.length === 1 && memberKey !== undefined) {
        topLevel.set(memberKey, token);
      }
      i = end + 1;
    } else if (c === 0x3a || isDelimiter(c)) {
      i++;
    } else {
      let end = i;
      while (end < text.length && !isDelimiter(text.charCodeAt(end))) end++;
      if (stack.length === 1 && memberKey !== undefined) {
        topLevel.set(memberKey, text.slice(i, end));
      }
      i = end;
    }
  }
  return { topLevel, error: undefined };
}
