import { performance } from "node:perf_hooks";

/**
 * For each distinct 3-code-unit substring of the search texts, the positions of the rows that
 * hold it. A row can only hold a query if it holds every trigram of the query, so a new query
 * checks the rows of its rarest trigram instead of every text. Code units, not code points:
 * `includes` compares code units too, so a query's trigrams are always trigrams of its rows.
 */
export interface Trigrams {
  /** The slot of each trigram present in some text. */
  slots: Map<string, number>;
  /** The rows of slot `s` are `postings[starts[s]]` up to `postings[starts[s + 1]]`. */
  starts: Uint32Array;
  /** Row positions, ascending and distinct within each slot. */
  postings: Uint32Array;
}

/** How long a build runs before it lets other work in, as loading the rows does. */
const sliceMs = 10;

/**
 * Trigrams of ASCII text (nearly all of it) are numbered through a flat table of 128³ entries
 * while building: a Map lookup per character made the build several times slower.
 */
const asciiTrigrams = 128 * 128 * 128;

/** The trigram index of `texts` (rows by position), built in slices that yield in between. */
export async function buildTrigrams(texts: readonly string[]): Promise<Trigrams> {
  const ascii = new Int32Array(asciiTrigrams).fill(-1);
  // Non-ASCII trigrams while numbering; every trigram once the table is read out at the end.
  const slots = new Map<string, number>();
  let slotCount = 0;
  // Per slot while numbering: the last row that held it (so a row counts once), and how many.
  let lastRow = new Int32Array(1024).fill(-1);
  let counts = new Uint32Array(1024);
  // Each row's slots in row order: `seen[rowEnds[r]]` up to `seen[rowEnds[r + 1]]`. A text
  // of n code units holds at most n - 2 trigrams, so this never grows.
  let bound = 0;
  for (const text of texts) bound += Math.max(0, text.length - 2);
  const seen = new Uint32Array(bound);
  const rowEnds = new Uint32Array(texts.length + 1);
  let used = 0;

  const slotOf = (a: number, b: number, c: number): number => {
    let slot: number | undefined;
    if ((a | b | c) < 128) {
      const key = (a << 14) | (b << 7) | c;
      slot = ascii[key];
      if (slot >= 0) return slot;
      ascii[key] = slotCount;
    } else {
      const key = String.fromCharCode(a, b, c);
      slot = slots.get(key);
      if (slot !== undefined) return slot;
      slots.set(key, slotCount);
    }
    if (slotCount === lastRow.length) {
      lastRow = grown(lastRow, -1);
      counts = grown(counts, 0);
    }
    return slotCount++;
  };

  let sliceStart = performance.now();
  const due = () => performance.now() - sliceStart >= sliceMs;
  const pause = async (): Promise<void> => {
    await new Promise((resolve) => setImmediate(resolve));
    sliceStart = performance.now();
  };

  for (let row = 0; row < texts.length; row++) {
    const text = texts[row];
    let a = text.charCodeAt(0);
    let b = text.charCodeAt(1);
    for (let i = 2; i < text.length; i++) {
      const c = text.charCodeAt(i);
      const slot = slotOf(a, b, c);
      a = b;
      b = c;
      if (lastRow[slot] === row) continue;
      lastRow[slot] = row;
      counts[slot]++;
      seen[used++] = slot;
    }
    rowEnds[row + 1] = used;
    if (due()) await pause();
  }

  const starts = new Uint32Array(slotCount + 1);
  for (let slot = 0; slot < slotCount; slot++) starts[slot + 1] = starts[slot] + counts[slot];
  // Rows are visited in order, so each slot's rows come out ascending.
  const postings = new Uint32Array(used);
  const next = starts.slice(0, slotCount);
  for (let row = 0; row < texts.length; row++) {
    for (let k = rowEnds[row]; k < rowEnds[row + 1]; k++) postings[next[seen[k]]++] = row;
    if (due()) await pause();
  }

  for (let key = 0; key < asciiTrigrams; key++) {
    if (ascii[key] >= 0) {
      slots.set(String.fromCharCode(key >> 14, (key >> 7) & 127, key & 127), ascii[key]);
    }
  }
  return { slots, starts, postings };
}

/** `array` at twice its length, the new half filled with `fill`. */
function grown<T extends Int32Array | Uint32Array>(array: T, fill: number): T {
  const larger = new (array.constructor as new (n: number) => T)(array.length * 2);
  larger.set(array);
  larger.fill(fill, array.length);
  return larger;
}

/**
 * The rows that may hold `query` (ascending): those holding its rarest trigram, none when one
 * of its trigrams is in no row. Undefined when the query is too short to have a trigram.
 */
export function candidatesOf(trigrams: Trigrams, query: string): Uint32Array | undefined {
  if (query.length < 3) return undefined;
  const { slots, starts, postings } = trigrams;
  let rarest = -1;
  for (let i = 0; i + 3 <= query.length; i++) {
    const slot = slots.get(query.slice(i, i + 3));
    if (slot === undefined) return new Uint32Array(0);
    if (rarest < 0 || starts[slot + 1] - starts[slot] < starts[rarest + 1] - starts[rarest]) {
      rarest = slot;
    }
  }
  return postings.subarray(starts[rarest], starts[rarest + 1]);
}
