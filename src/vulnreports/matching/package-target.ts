import { schemeForPurlType, type VersionScheme } from "../../versions/index.ts";
import { packageName, parsePackageUrl } from "../../vulnerabilities/feeds/package-url.ts";

/** An installed package as image_packages holds it. */
export interface InstalledPackage {
  name: string;
  version: string;
  purl: string;
  /** The purl type: apk, deb, pypi, npm, maven, golang, …; "" without a purl. */
  ecosystem: string;
  license: string;
  /** The source package (apk origin, dpkg Source), when it differs from the name. */
  origin: string;
}

/** What an advisory must say to be about a package. */
export interface PackageTarget {
  pkg: InstalledPackage;
  /** Names an advisory's artifact_name may have: the package, its origin, its purl name. */
  names: string[];
  /** Advisory namespaces (package_namespace before any `:release`) that apply. */
  namespaces: ReadonlySet<string>;
  /** The distribution release advisories with a `:release` must name; "" for any. */
  release: string;
  /** The artifact_type of advisories about it: apk for apk, library otherwise. */
  artifactType: string;
  /** The installed version's rules; undefined when the purl type has none. */
  scheme: VersionScheme | undefined;
}

/** Advisory namespaces for each language ecosystem (OSV names, lower-cased by the import). */
const LIBRARY_NAMESPACES: Readonly<Record<string, string>> = {
  pypi: "pypi",
  npm: "npm",
  maven: "maven",
  golang: "go",
  cargo: "crates.io",
  gem: "rubygems",
};

/** The image's distribution: `wolfi`, `alpine 3.20`, `debian 12` → id and release. */
export function splitDistro(distro: string): { id: string; release: string } {
  const [id = "", release = ""] = distro.trim().toLowerCase().split(/\s+/);
  return { id, release };
}

/** A package's purl type (`deb`, `pypi`, …), or its ecosystem when it has no purl; lower case. */
export function packageType(
  pkg: InstalledPackage,
  purl = pkg.purl ? parsePackageUrl(pkg.purl) : undefined,
): string {
  return (purl?.type ?? pkg.ecosystem).toLowerCase();
}

/**
 * The matching target of one installed package in an image of `distro`. An apk package takes
 * Wolfi and Chainguard advisories, or Alpine ones in an Alpine image; a deb package takes its
 * distribution's (Debian unless the purl or the image says Ubuntu). The purl's namespace
 * (`pkg:apk/alpine/…`) wins over the image's os-release when both are present.
 */
export function packageTarget(pkg: InstalledPackage, distro: string): PackageTarget {
  const purl = pkg.purl ? parsePackageUrl(pkg.purl) : undefined;
  const type = packageType(pkg, purl);
  const image = splitDistro(distro);
  const vendor = (purl?.namespace ?? image.id).toLowerCase();
  const names = new Set([pkg.name]);
  if (pkg.origin) names.add(pkg.origin);
  if (purl) names.add(packageName(purl));
  const upstream = purl?.qualifiers.upstream;
  if (upstream && type === "deb") names.add(upstream.replace(/@.*$/, ""));
  let namespaces: Set<string>;
  let release = "";
  if (type === "apk") {
    namespaces = vendor === "alpine" ? new Set(["alpine"]) : new Set(["wolfi", "chainguard"]);
    if (vendor === "alpine" && image.id === "alpine") release = image.release;
  } else if (type === "deb") {
    namespaces = new Set([vendor === "ubuntu" ? "ubuntu" : "debian"]);
    if (image.id === [...namespaces][0]) release = image.release;
  } else {
    const namespace = LIBRARY_NAMESPACES[type];
    namespaces = new Set(namespace ? [namespace] : []);
  }
  // OpenVEX statements name a purl, not an ecosystem: they apply to any package of the type.
  if (namespaces.size > 0) namespaces.add("openvex");
  const scheme = schemeForPurlType(type);
  return {
    pkg,
    names: [...names],
    namespaces,
    release,
    artifactType: type === "apk" ? "apk" : "library",
    scheme: scheme.value,
  };
}

/** OCI architectures and the names distributions give them in advisories. */
const ARCH_ALIASES: Readonly<Record<string, string>> = {
  amd64: "x86_64",
  arm64: "aarch64",
  "386": "x86",
  arm: "armv7",
};

/** True when an advisory's architecture (empty for all) covers the image's. */
export function architectureMatches(advisoryArch: string, imageArch: string): boolean {
  if (advisoryArch === "" || imageArch === "") return true;
  const wanted = advisoryArch.toLowerCase();
  const image = imageArch.toLowerCase();
  return wanted === image || wanted === (ARCH_ALIASES[image] ?? image);
}

/**
 * True when an advisory namespace (`wolfi`, `debian:12`, `alpine:v3.20`, `pypi`, `openvex`)
 * and artifact type apply to the target. A release suffix must agree with the image's release
 * when the image names one: `v3.20` covers 3.20 and 3.20.3, `12` covers 12.
 */
export function namespaceMatches(
  target: PackageTarget,
  namespace: string,
  artifactType: string,
): boolean {
  const [base = "", advisoryRelease = ""] = namespace.toLowerCase().split(":");
  if (!target.namespaces.has(base)) return false;
  if (base === "openvex" && artifactType !== target.artifactType) return false;
  if (!advisoryRelease || !target.release) return true;
  const wanted = advisoryRelease.replace(/^v/, "");
  return target.release === wanted || target.release.startsWith(`${wanted}.`);
}
