/** The result of a parser: a value or an error text, never both. */
export type Parsed<T> = { value: T; error?: undefined } | { value?: undefined; error: string };

/** The sign of a comparison: `a` before, equal to, or after `b`. */
export type Ordering = -1 | 0 | 1;

/**
 * One ecosystem's version rules. Parsing and comparing are separate so that a caller sorting
 * or scanning many versions parses each once; `compare` is total on parsed values, so invalid
 * text never reaches it and no comparison has to invent an order for garbage.
 */
export interface VersionScheme<V = unknown> {
  /** Short name of the rules, e.g. `apk`, `debian`, `pep440`. */
  readonly name: string;
  /** Parses one version, or says why the text is not a version under these rules. */
  parse(text: string): Parsed<V>;
  /** Orders two parsed versions. Equal means equal precedence, not equal text. */
  compare(a: V, b: V): Ordering;
  /** Parses and compares; refuses (names the text and the reason) when either is invalid. */
  compareText(a: string, b: string): Parsed<Ordering>;
  /** Whether `parse` accepts the text. */
  isValid(text: string): boolean;
}

/** Builds a scheme from its parser and comparator, adding the text conveniences. */
export function createScheme<V>(
  name: string,
  parse: (text: string) => Parsed<V>,
  compare: (a: V, b: V) => Ordering,
): VersionScheme<V> {
  return {
    name,
    parse,
    compare,
    compareText(a, b) {
      const left = parse(a);
      if (left.error !== undefined)
        return { error: `invalid ${name} version "${a}": ${left.error}` };
      const right = parse(b);
      if (right.error !== undefined) {
        return { error: `invalid ${name} version "${b}": ${right.error}` };
      }
      return { value: compare(left.value, right.value) };
    },
    isValid: (text) => parse(text).error === undefined,
  };
}

/** Clamps a number to an Ordering. */
export function sign(n: number): Ordering {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

/**
 * Compares two runs of ASCII digits by value, at any length. Versions carry numbers past 2^53
 * (dates with times, build counters), which `Number` would round into false equalities.
 */
export function compareDigits(a: string, b: string): Ordering {
  const x = stripZeros(a);
  const y = stripZeros(b);
  if (x.length !== y.length) return x.length < y.length ? -1 : 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

function stripZeros(digits: string): string {
  let i = 0;
  while (i < digits.length - 1 && digits[i] === "0") i++;
  return digits.slice(i);
}

/** Compares two strings by UTF-16 code units, the byte order for the ASCII that versions use. */
export function compareCodeUnits(a: string, b: string): Ordering {
  return a < b ? -1 : a > b ? 1 : 0;
}
