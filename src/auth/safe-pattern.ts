import { RE2JS } from "re2js";

/** Longest pattern, in characters. */
export const maxPatternLength = 1024;

/** Longest value a pattern is run against; longer values never match. */
export const maxMatchedLength = 1024;

/**
 * Largest compiled pattern, in RE2 program instructions. Matching costs program size times input
 * length: at 1000 instructions a 1024-character value takes milliseconds, while repetition counts
 * that RE2 itself accepts (`(?:[a-z]{0,1000}){5}`, ~10 000 instructions) take most of a second.
 */
export const maxProgramSize = 1000;

/**
 * Compiled patterns kept; the least recently used is dropped beyond it. Each keeps its lazy DFA,
 * about 2 MB for the costliest accepted pattern after many distinct inputs, so the cap bounds
 * memory as well as compile work.
 */
const cacheSize = 64;

/** Tests a whole value against a compiled pattern. */
export type PatternMatcher = (value: string) => boolean;

/** A compiled pattern, or why the text cannot be one. */
export type CompiledPattern =
  | { value: PatternMatcher; error?: undefined }
  | { value?: undefined; error: string };

const cache = new Map<string, CompiledPattern>();

/**
 * Compiles a user-supplied pattern with RE2 (https://github.com/google/re2/wiki/Syntax), which
 * matches in time linear in the input, so no pattern can stall the event loop the way a
 * backtracking JavaScript RegExp can. The matcher tests the whole value, as if the pattern were
 * `^(?:pattern)$`. Results, failures included, are cached by pattern text.
 */
export function compileSafePattern(pattern: string): CompiledPattern {
  const cached = cache.get(pattern);
  if (cached) {
    cache.delete(pattern);
    cache.set(pattern, cached);
    return cached;
  }
  const compiled = compile(pattern);
  cache.set(pattern, compiled);
  if (cache.size > cacheSize) cache.delete(cache.keys().next().value as string);
  return compiled;
}

function compile(pattern: string): CompiledPattern {
  if (pattern.length > maxPatternLength) {
    return { error: `is longer than ${maxPatternLength} characters` };
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (error) {
    return { error: syntaxReason(pattern, error) };
  }
  const size = re.programSize();
  if (size > maxProgramSize) {
    return {
      error: `compiles to ${size} RE2 instructions, more than ${maxProgramSize}; use smaller repetition counts`,
    };
  }
  return { value: (value) => value.length <= maxMatchedLength && re.testExact(value) };
}

function syntaxReason(pattern: string, error: unknown): string {
  const message =
    error instanceof Error ? error.message.replace(/^error parsing regexp: /, "") : "";
  if (/\\[1-9]|\\k</.test(pattern) && /invalid escape sequence: `\\[1-9k]/.test(message)) {
    return `uses a backreference, which RE2 does not support (${message})`;
  }
  if (/\(\?<?[=!]/.test(pattern) && /\(\?<?[=!]/.test(message)) {
    return `uses lookahead or lookbehind, which RE2 does not support (${message})`;
  }
  return `does not parse (${message || "unknown error"})`;
}
