/**
 * Seeded generators of version texts per ecosystem grammar, for differential and property
 * tests. They favour small alphabets, so that equal and nearly equal pairs are common.
 */

/** A small seeded PRNG (mulberry32), so a failing pair can be reproduced from its seed. */
export function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    int,
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[int(items.length)],
  };
}

export type Random = ReturnType<typeof createRandom>;

/** Pairs where half of the second versions are small edits of the first. */
export function pairsOf(
  random: Random,
  count: number,
  make: () => string,
  edit: (v: string) => string,
) {
  const pairs: [string, string][] = [];
  while (pairs.length < count) {
    const a = make();
    pairs.push([a, random.chance(0.5) ? edit(a) : make()]);
  }
  return pairs;
}

const repeat = (random: Random, min: number, max: number, part: () => string) =>
  Array.from({ length: min + random.int(max - min + 1) }, part);

export function debianVersion(random: Random): string {
  const epoch = random.chance(0.2) ? `${random.pick(["0", "1", "2", "01"])}:` : "";
  const revision = random.chance(0.6);
  const upstreamParts = ["0", "1", "2", "10", "01", "a", "b", "Z", ".", "+", "~", "~~"];
  if (revision) upstreamParts.push("-");
  if (epoch) upstreamParts.push(":");
  const upstream =
    random.pick(["0", "1", "2", "10"]) +
    repeat(random, 0, 5, () => random.pick(upstreamParts)).join("");
  const rev = revision
    ? `-${repeat(random, 1, 4, () => random.pick(["0", "1", "2", "a", "b", ".", "+", "~"])).join("")}`
    : "";
  return epoch + upstream + rev;
}

export function pep440Version(random: Random): string {
  const sep = () => random.pick(["", "", ".", "-", "_"]);
  const num = () => random.pick(["0", "1", "2", "10", "00", "01"]);
  let text = random.chance(0.1) ? random.pick(["v", "V"]) : "";
  if (random.chance(0.15)) text += `${random.pick(["0", "1", "2"])}!`;
  text += repeat(random, 1, 4, num).join(".");
  if (random.chance(0.4)) {
    text +=
      sep() + random.pick(["a", "alpha", "b", "beta", "c", "rc", "pre", "preview", "RC", "Alpha"]);
    if (random.chance(0.7)) text += sep() + num();
  }
  if (random.chance(0.3)) {
    text += random.chance(0.3)
      ? `-${num()}`
      : sep() +
        random.pick(["post", "rev", "r", "POST"]) +
        (random.chance(0.7) ? sep() + num() : "");
  }
  if (random.chance(0.3))
    text += sep() + random.pick(["dev", "DEV"]) + (random.chance(0.7) ? sep() + num() : "");
  if (random.chance(0.3)) {
    const segment = () =>
      random.pick(["1", "01", "2", "10", "abc", "abd", "ubuntu", "Ubuntu", "x1"]);
    text += `+${segment()}${repeat(random, 0, 2, () => random.pick([".", "-", "_"]) + segment()).join("")}`;
  }
  return text;
}

/** A PEP 440 text that may or may not be valid, to compare what is refused. */
export function pep440Candidate(random: Random): string {
  const text = pep440Version(random);
  const at = random.int(text.length + 1);
  const junk = random.pick(["", ".", "-", "_", "+", "x", "a", "..", "!", " ", "post", "dev", "1"]);
  return random.chance(0.5) ? text.slice(0, at) + junk + text.slice(at) : text;
}

export function mavenVersion(random: Random): string {
  return random.chance(0.5) ? mavenTokens(random) : mavenScramble(random);
}

/** Familiar shapes: a number, then tokens joined by dots, hyphens or nothing. */
function mavenTokens(random: Random): string {
  const tokens = [
    ...["0", "1", "2", "10", "01", "0", "1"],
    ...["a", "b", "m", "alpha", "beta", "milestone", "rc", "cr", "RC", "snapshot", "SNAPSHOT"],
    ...["ga", "final", "release", "sp", "foo", "xyz", "Final", "_", "c"],
  ];
  let text = random.pick(["0", "1", "2", "1.0", "a"]);
  for (const token of repeat(random, 0, 5, () => random.pick(tokens))) {
    text += random.pick([".", "-", "", "."]) + token;
  }
  return text;
}

/** Anything Maven accepts: runs of separators, bare qualifiers, huge and zero-padded numbers. */
function mavenScramble(random: Random): string {
  const words = [...["0", "1", "9", "00", "01", ".", "-", "-", "_", "a", "b", "m", "c", "p"]];
  words.push(...["rc", "sp", "ga", "cr", "final", "alpha", "snapshot", "release", "x", "RC"]);
  words.push(...["Final", "milestone", "1234567890", "12345678901234567890", "0000000000001"]);
  return repeat(random, 1, 7, () => random.pick(words)).join("");
}

export function semverVersion(random: Random): string {
  const num = () => random.pick(["0", "1", "2", "10", "11"]);
  let text = `${num()}.${num()}.${num()}`;
  if (random.chance(0.6)) {
    const id = () =>
      random.pick(["alpha", "beta", "rc", "0", "1", "2", "10", "x-y", "a1", "1a", "-", "A"]);
    text += `-${repeat(random, 1, 3, id).join(".")}`;
  }
  if (random.chance(0.2))
    text += `+${repeat(random, 1, 2, () => random.pick(["build", "001", "x"])).join(".")}`;
  return text;
}

export function apkVersion(random: Random): string {
  let text = repeat(random, 1, 4, () => random.pick(["0", "1", "2", "10", "01", "00"])).join(".");
  if (random.chance(0.2)) text += random.pick(["a", "b", "z"]);
  for (const suffix of repeat(random, 0, 2, () =>
    random.pick(["alpha", "beta", "pre", "rc", "cvs", "svn", "git", "hg", "p"]),
  )) {
    text += `_${suffix}${random.chance(0.6) ? random.pick(["0", "1", "2", "10", "01"]) : ""}`;
  }
  if (random.chance(0.6)) text += `-r${random.pick(["0", "1", "2", "10"])}`;
  return text;
}

/** A small edit: a character dropped, doubled or swapped for a neighbour in the alphabet. */
export function editOf(random: Random, alphabet: string) {
  return (text: string) => {
    const at = random.int(text.length);
    const action = random.int(3);
    if (action === 0 && text.length > 1) return text.slice(0, at) + text.slice(at + 1);
    if (action === 1) return text.slice(0, at) + text[at] + text.slice(at);
    return text.slice(0, at) + random.pick([...alphabet]) + text.slice(at + 1);
  };
}
