import { normalisePythonName as normalName } from "../layers/python-dist-info.ts";
import type { Finding } from "./matcher.ts";
import { type InstalledPackage, packageType } from "./package-target.ts";

/** Package types of distributions, whose packages install language packages' files. */
const OS_TYPES = new Set(["deb", "rpm", "apk"]);

/**
 * The prefixes distributions give a language package's name when they package it, by the
 * language package's purl type: Debian and Fedora `python3-urllib3`, Alpine `py3-urllib3`,
 * Debian `ruby-webrick` and `node-semver`, Fedora `rubygem-rack` and `nodejs-semver`.
 */
const PREFIXES: Readonly<Record<string, readonly string[]>> = {
  pypi: ["python3-", "python-", "py3-", "pypy3-"],
  gem: ["ruby-", "rubygem-"],
  npm: ["node-", "nodejs-"],
};

/**
 * The upstream version a distribution's version carries: without the epoch (`1:`), the
 * revision or release after the last `-` (Debian `-1+deb12u1`, rpm `-2.el9`, apk `-r0`), and
 * a repack suffix from the first `+` or `~` (`2.14.0+dfsg`).
 */
export function upstreamVersion(version: string): string {
  let text = version.replace(/^[0-9]+:/, "");
  const dash = text.lastIndexOf("-");
  if (dash > 0) text = text.slice(0, dash);
  return text.replace(/[+~].*$/, "");
}

/** The keys under which a language package of `type` would find this OS package. */
function osKeys(pkg: InstalledPackage, type: string): string[] {
  const version = upstreamVersion(pkg.version);
  const keys = new Set<string>();
  for (const name of [pkg.name, pkg.origin]) {
    if (!name) continue;
    const normal = normalName(name);
    for (const prefix of PREFIXES[type] ?? []) {
      if (normal.startsWith(prefix)) keys.add(`${normal.slice(prefix.length)}\n${version}`);
    }
    keys.add(`${normal}\n${version}`);
  }
  return [...keys];
}

/** Whether two findings report one vulnerability: the same id, or each naming the other's. */
function sameVulnerability(a: Finding, b: Finding): boolean {
  return a.id === b.id || (a.ids.includes(b.id) && b.ids.includes(a.id));
}

/**
 * Folds a language package's finding into a distribution package's when both are the same
 * software found twice (Debian's python3-urllib3 and the urllib3 dist-info it installed) and
 * report the same vulnerability: the language package's type has a naming rule for it (its
 * normalised name is the OS package's name or source, with or without the distribution's
 * prefix), its version is the OS package's upstream version, and the two reported ids agree.
 * The OS package's finding is kept (its advisory knows the distribution's backported fixes)
 * and lists the other in `sameAs`. Everything else, two different packages with one CVE
 * included, stays as it is. Linear in the findings: OS findings are indexed by key.
 */
export function mergeSameSoftware(findings: Finding[]): Finding[] {
  const byKey = new Map<string, Finding[]>();
  const types = new Map<Finding, string>();
  for (const finding of findings) types.set(finding, packageType(finding.pkg));
  const languageTypes = new Set(
    [...types.values()].filter((t) => !OS_TYPES.has(t) && PREFIXES[t] !== undefined),
  );
  for (const finding of findings) {
    if (!OS_TYPES.has(types.get(finding) ?? "")) continue;
    for (const type of languageTypes) {
      for (const key of osKeys(finding.pkg, type)) {
        const list = byKey.get(`${type}\n${key}`);
        if (list) list.push(finding);
        else byKey.set(`${type}\n${key}`, [finding]);
      }
    }
  }
  if (byKey.size === 0) return findings;
  const folded = new Set<Finding>();
  for (const finding of findings) {
    const type = types.get(finding) ?? "";
    if (!languageTypes.has(type)) continue;
    const key = `${type}\n${normalName(finding.pkg.name)}\n${finding.pkg.version}`;
    const owner = byKey.get(key)?.find((os) => sameVulnerability(os, finding));
    if (owner === undefined) continue;
    owner.sameAs = [...(owner.sameAs ?? []), finding];
    folded.add(finding);
  }
  return folded.size === 0 ? findings : findings.filter((f) => !folded.has(f));
}
