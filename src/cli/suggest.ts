/**
 * Edit distance with adjacent transpositions (optimal string alignment): "--pasre" is one edit
 * from "--parse", the typo people make most.
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}

/**
 * The candidate `word` was most likely meant to be: the closest within one edit per three letters
 * (at least one, at most two: two edits turn "page" into "name", which nobody meant), else the
 * only candidate that starts with it. Undefined when nothing is close enough.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const limit = Math.min(2, Math.max(1, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best) return best;
  const extending = candidates.filter((c) => word.length >= 3 && c.startsWith(word));
  return extending.length === 1 ? extending[0] : undefined;
}
