import {
  compareCodeUnits,
  compareDigits,
  createScheme,
  type Ordering,
  type Parsed,
  type VersionScheme,
} from "./version-scheme.ts";

/**
 * An item of a Maven version. A list opens at each `-`, at each change between digits and
 * letters, and before a qualifier that follows a `.` and is last or followed by digits; so
 * `1.0-rc1` is [1, [rc, [1]]].
 */
export type MavenItem =
  | { kind: "number"; digits: string }
  | { kind: "qualifier"; name: string }
  | { kind: "list"; items: MavenItem[] };

/** A parsed Maven version: the normalised item tree of `ComparableVersion`. */
export interface MavenVersion {
  text: string;
  items: MavenItem[];
}

/** Known qualifiers in order; the empty name is the release (`ga`, `final` and `release`). */
const QUALIFIERS = ["alpha", "beta", "milestone", "rc", "snapshot", "", "sp"];
const ALIASES: Record<string, string> = { ga: "", final: "", release: "", cr: "rc" };
const SHORT: Record<string, string> = { a: "alpha", b: "beta", m: "milestone" };

/**
 * Parses a Maven version as maven-artifact 3.8's `ComparableVersion` does. Maven accepts any
 * text; Lading refuses the empty string and anything outside printable ASCII, where Java's
 * Unicode digits and case rules would decide the order.
 */
export function parseMavenVersion(text: string): Parsed<MavenVersion> {
  if (text === "") return { error: "empty" };
  if (!/^[!-~]+$/.test(text)) return { error: "may only contain printable ASCII without spaces" };
  const s = text.toLowerCase();
  const root: MavenItem[] = [];
  const lists = [root];
  let list = root;
  const open = () => {
    const items: MavenItem[] = [];
    list.push({ kind: "list", items });
    lists.push(items);
    list = items;
  };
  let digits = false;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "." || c === "-") {
      list.push(i === start ? { kind: "number", digits: "0" } : item(digits, s.slice(start, i)));
      start = i + 1;
      if (c === "-") open();
    } else if (c >= "0" && c <= "9") {
      if (!digits && i > start) {
        // `1.0.RC1` must equal `1.0-RC1`, so a qualifier after a dot starts a list too.
        if (list.length > 0) open();
        list.push(qualifier(s.slice(start, i), true));
        start = i;
        open();
      }
      digits = true;
    } else {
      if (digits && i > start) {
        list.push(item(true, s.slice(start, i)));
        start = i;
        open();
      }
      digits = false;
    }
  }
  if (s.length > start) {
    if (!digits && list.length > 0) open();
    list.push(item(digits, s.slice(start)));
  }
  for (let i = lists.length - 1; i >= 0; i--) normalize(lists[i]);
  return { value: { text, items: root } };
}

function item(digits: boolean, run: string): MavenItem {
  return digits ? { kind: "number", digits: run.replace(/^0+(?=.)/, "") } : qualifier(run, false);
}

function qualifier(run: string, followedByDigit: boolean): MavenItem {
  const name = followedByDigit && run.length === 1 ? (SHORT[run] ?? run) : run;
  return { kind: "qualifier", name: ALIASES[name] ?? name };
}

/** Drops trailing null items (0, release), looking past non-empty lists: 1.0.0 is 1. */
function normalize(items: MavenItem[]): void {
  for (let i = items.length - 1; i >= 0; i--) {
    const last = items[i];
    if (isNull(last)) items.splice(i, 1);
    else if (last.kind !== "list") break;
  }
}

function isNull(item: MavenItem): boolean {
  if (item.kind === "number") return item.digits === "0";
  if (item.kind === "qualifier") return item.name === "";
  return item.items.length === 0;
}

/** Orders two Maven versions as `ComparableVersion.compareTo` does. */
export function compareMavenVersions(a: MavenVersion, b: MavenVersion): Ordering {
  return compareLists(a.items, b.items);
}

function compareLists(a: MavenItem[], b: MavenItem[]): Ordering {
  for (let i = 0; i < a.length || i < b.length; i++) {
    const order =
      i >= a.length ? (-compareItem(b[i], undefined) as Ordering) : compareItem(a[i], b[i]);
    if (order !== 0) return order;
  }
  return 0;
}

/**
 * Compares an item with another, or with the padding `undefined` a shorter list gets. Numbers
 * beat lists beat qualifiers; a qualifier against padding is compared with the release.
 */
function compareItem(a: MavenItem, b: MavenItem | undefined): Ordering {
  if (b === undefined) {
    if (a.kind === "number") return a.digits === "0" ? 0 : 1;
    if (a.kind === "qualifier") return compareQualifiers(a.name, "");
    return compareLists(a.items, []);
  }
  if (a.kind !== b.kind) return RANK[a.kind] < RANK[b.kind] ? -1 : 1;
  if (a.kind === "number") return compareDigits(a.digits, (b as typeof a).digits);
  if (a.kind === "qualifier") return compareQualifiers(a.name, (b as typeof a).name);
  return compareLists(a.items, (b as typeof a).items);
}

const RANK = { qualifier: 0, list: 1, number: 2 } as const;

/** Known qualifiers by their place, then unknown ones after them, alphabetically. */
function compareQualifiers(a: string, b: string): Ordering {
  return compareCodeUnits(qualifierKey(a), qualifierKey(b));
}

function qualifierKey(name: string): string {
  const index = QUALIFIERS.indexOf(name);
  return index >= 0 ? String(index) : `${QUALIFIERS.length}-${name}`;
}

/** Maven's rules (maven-artifact 3.8 `ComparableVersion`). */
export const mavenScheme: VersionScheme<MavenVersion> = createScheme(
  "maven",
  parseMavenVersion,
  compareMavenVersions,
);
