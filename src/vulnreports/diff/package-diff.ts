/** A package of an image, as image_packages stores it. */
export interface ImagePackage {
  name: string;
  version: string;
  purl: string;
  /** The purl type (apk, deb, npm, …); "" without a purl. */
  ecosystem: string;
}

/** A package that appeared, disappeared or changed version; "" for the missing side. */
export interface PackageChange {
  name: string;
  ecosystem: string;
  purl: string;
  fromVersion: string;
  toVersion: string;
}

/** The package changes between two images. */
export interface PackageDiff {
  added: PackageChange[];
  removed: PackageChange[];
  changed: PackageChange[];
}

/**
 * What makes two packages "the same package" across versions: the purl without its version,
 * qualifiers and subpath (qualifiers such as distro change with every release), or the
 * ecosystem and name when there is no purl.
 */
export function packageKey(p: ImagePackage): string {
  if (p.purl === "") return `${p.ecosystem}:${p.name}`;
  const base = p.purl.split(/[?#]/)[0];
  const at = base.lastIndexOf("@");
  return at > base.lastIndexOf("/") ? base.slice(0, at) : base;
}

/**
 * Packages added, removed and changed from `from` to `to`. An image may hold one package in
 * several versions (two copies of a library): versions on both sides cancel out, and what is
 * left is paired in version order as changes, the surplus being additions or removals.
 */
export function diffPackages(from: ImagePackage[], to: ImagePackage[]): PackageDiff {
  const before = groupByKey(from);
  const after = groupByKey(to);
  const diff: PackageDiff = { added: [], removed: [], changed: [] };
  const keys = [...new Set([...before.keys(), ...after.keys()])];
  for (const key of keys) {
    const { left, right } = withoutCommonVersions(before.get(key) ?? [], after.get(key) ?? []);
    const pairs = Math.min(left.length, right.length);
    for (let i = 0; i < pairs; i++) diff.changed.push(change(left[i], right[i]));
    for (const p of left.slice(pairs)) diff.removed.push(change(p, undefined));
    for (const p of right.slice(pairs)) diff.added.push(change(undefined, p));
  }
  for (const list of [diff.added, diff.removed, diff.changed]) list.sort(byNameThenVersion);
  return diff;
}

function groupByKey(packages: ImagePackage[]): Map<string, ImagePackage[]> {
  const groups = new Map<string, ImagePackage[]>();
  for (const p of packages) {
    const key = packageKey(p);
    const group = groups.get(key);
    if (group) group.push(p);
    else groups.set(key, [p]);
  }
  return groups;
}

function withoutCommonVersions(
  left: ImagePackage[],
  right: ImagePackage[],
): { left: ImagePackage[]; right: ImagePackage[] } {
  const remaining = [...right];
  const kept: ImagePackage[] = [];
  for (const p of left) {
    const same = remaining.findIndex((q) => q.version === p.version);
    if (same >= 0) remaining.splice(same, 1);
    else kept.push(p);
  }
  const byVersion = (a: ImagePackage, b: ImagePackage) => compareText(a.version, b.version);
  return { left: kept.sort(byVersion), right: remaining.sort(byVersion) };
}

function change(from: ImagePackage | undefined, to: ImagePackage | undefined): PackageChange {
  const p = (to ?? from) as ImagePackage;
  return {
    name: p.name,
    ecosystem: p.ecosystem,
    purl: p.purl,
    fromVersion: from?.version ?? "",
    toVersion: to?.version ?? "",
  };
}

function byNameThenVersion(a: PackageChange, b: PackageChange): number {
  return (
    compareText(a.name, b.name) ||
    compareText(a.ecosystem, b.ecosystem) ||
    compareText(a.fromVersion, b.fromVersion) ||
    compareText(a.toVersion, b.toVersion)
  );
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
