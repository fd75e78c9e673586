import { createHash } from "node:crypto";
import type { AdvisoryEventRecord } from "../../vulnerabilities/index.ts";
import type { ImageScanData, StoredMatch } from "../diff/index.ts";
import { type VexStatus, vexStatusOf } from "./vex-status.ts";

/** The OpenVEX version Lading writes (formats §1.4). */
export const openVexContext = "https://openvex.dev/ns/v0.2.0";

/** An advisory of a package, as the VEX reads it. */
export interface PackageAdvisory {
  advisoryId: string;
  aliases: string[];
  /** The package (or origin package) it is about. */
  artifactName: string;
  /** Oldest first. */
  events: AdvisoryEventRecord[];
}

/** One scanned platform image of the manifest the document is about. */
export interface VexPlatform {
  architecture: string;
  digest: string;
  scan: ImageScanData;
}

/** What the document is built from. */
export interface VexInput {
  repoUid: string;
  /** The manifest asked for: an image, or an index of `platforms`. */
  digest: string;
  isIndex: boolean;
  /** The purl name of the image: the repo name's last segment. */
  imageName: string;
  /** `<registry host>/<org>/<repo>`, the purl repository_url qualifier. */
  repositoryUrl: string;
  platforms: VexPlatform[];
  advisories: PackageAdvisory[];
}

/** An OpenVEX statement, with the field names of the VexStatement message. */
export interface VexStatementShape extends VexStatus {
  vulnerability: { name: string; aliases: string[] };
  products: { id: string; subcomponents: { id: string }[] }[];
  timestamp: string;
}

/** An OpenVEX document, with the field names of the VexDocument message. */
export interface VexDocumentShape {
  context: string;
  id: string;
  author: string;
  role: string;
  timestamp: string;
  version: number;
  tooling: string;
  statements: VexStatementShape[];
}

/**
 * The OpenVEX document of an image (or an index of images). Every match of the latest
 * reports is a statement, its status taken from the advisory of the same vulnerability and
 * package when there is one, else `affected` with the report's fix as the action. Advisories
 * whose latest event resolves the vulnerability for the installed version (fixed, a false
 * positive, fix or analysis not planned, pending upstream) are statements too, matched or
 * not: the scanner leaves those out, and downstream scanners need to hear it. Statements that
 * say the same of the same package in several platforms are one statement with one product
 * per platform.
 */
export function buildOpenVex(input: VexInput): VexDocumentShape {
  const byArtifact = new Map<string, PackageAdvisory[]>();
  for (const advisory of input.advisories) {
    const list = byArtifact.get(advisory.artifactName) ?? [];
    list.push(advisory);
    byArtifact.set(advisory.artifactName, list);
  }
  const merged = new Map<string, VexStatementShape>();
  const add = (
    platform: VexPlatform,
    statement: Omit<VexStatementShape, "products">,
    purl: string,
  ) => {
    const key = JSON.stringify([statement, purl]);
    const product = { id: productId(input, platform), subcomponents: [{ id: purl }] };
    const seen = merged.get(key);
    if (seen) seen.products.push(product);
    else merged.set(key, { ...statement, products: [product] });
  };

  for (const platform of input.platforms) {
    const stated = new Set<string>();
    const matchedPairs = new Set(
      platform.scan.matches.map((m) => `${m.vulnerability.id}\n${packageRef(m.pkg)}`),
    );
    const packages = new Map(platform.scan.packages.map((p) => [packageRef(p), p]));
    for (const pkg of packages.values()) {
      const candidates = new Set([
        ...(byArtifact.get(pkg.name) ?? []),
        ...(pkg.origin ? (byArtifact.get(pkg.origin) ?? []) : []),
      ]);
      for (const advisory of candidates) {
        const latest = advisory.events.at(-1);
        if (!latest) continue;
        const ids = [advisory.advisoryId, ...advisory.aliases];
        const matched = ids.some((id) => matchedPairs.has(`${id}\n${packageRef(pkg)}`));
        const status = vexStatusOf(latest, pkg);
        if (!matched && !resolves(latest, status)) continue;
        for (const id of ids) stated.add(`${id}\n${packageRef(pkg)}`);
        add(
          platform,
          { vulnerability: nameOf(ids), ...status, timestamp: latest.timestamp },
          purlOf(pkg),
        );
      }
    }
    for (const match of platform.scan.matches) {
      const ids = [match.vulnerability.id, ...match.vulnerability.relatedIds];
      if (ids.some((id) => stated.has(`${id}\n${packageRef(match.pkg)}`))) continue;
      stated.add(`${match.vulnerability.id}\n${packageRef(match.pkg)}`);
      const statement = {
        vulnerability: nameOf(ids),
        ...matchStatus(match),
        timestamp: platform.scan.reportTime,
      };
      add(platform, statement, purlOf(match.pkg));
    }
  }

  const generations = input.platforms.map((p) => p.scan.generation);
  const times = input.platforms.map((p) => p.scan.reportTime).filter((t) => t !== "");
  const timestamp = times.sort().at(-1) ?? new Date().toISOString();
  const statements = [...merged.values()].map((s) => ({
    ...s,
    timestamp: s.timestamp || timestamp,
  }));
  statements.sort(
    (a, b) =>
      compare(a.vulnerability.name, b.vulnerability.name) ||
      compare(a.products[0].subcomponents[0].id, b.products[0].subcomponents[0].id),
  );
  const identity = [input.repoUid, input.digest, ...generations.map(String)].join("\n");
  return {
    context: openVexContext,
    id: `urn:lading:vex:${createHash("sha256").update(identity).digest("hex")}`,
    author: "Lading",
    role: "Document Creator",
    timestamp,
    version: Math.max(
      1,
      generations.reduce((a, b) => a + b, 0),
    ),
    tooling: "Lading vulnerability reports",
    statements,
  };
}

/** Statements come from advisories alone only when they close the question for the version. */
function resolves(latest: AdvisoryEventRecord, status: VexStatus): boolean {
  if (latest.type === "detection" || latest.type === "true-positive-determination") return false;
  return !(status.status === "affected" && (latest.type === "fixed" || latest.type === "patched"));
}

function matchStatus(match: StoredMatch): VexStatus {
  const { state, versions } = match.fix;
  if (state === "FIXED" && versions.length > 0) {
    return {
      status: "affected",
      actionStatement: `Update ${match.pkg.name} to ${versions.join(" or ")} or later`,
    };
  }
  if (state === "WONT_FIX") return { status: "affected", actionStatement: "No fix is planned" };
  return {
    status: "affected",
    actionStatement: "No fix is available yet; watch for an updated image",
  };
}

/** The CVE as the name (what downstream scanners key on), every other id as an alias. */
function nameOf(ids: string[]): { name: string; aliases: string[] } {
  const unique = [...new Set(ids)];
  const name = unique.find((id) => id.startsWith("CVE-")) ?? unique[0];
  return { name, aliases: unique.filter((id) => id !== name).sort() };
}

function productId(input: VexInput, platform: VexPlatform): string {
  const arch = input.isIndex ? `arch=${encodeURIComponent(platform.architecture)}&` : "";
  const url = encodeURIComponent(input.repositoryUrl).replace(/%2F/g, "/").replace(/%3A/g, ":");
  return `pkg:oci/${input.imageName}@${platform.digest}?${arch}repository_url=${url}`;
}

function packageRef(p: { name: string; version: string; purl: string }): string {
  return p.purl || `${p.name}@${p.version}`;
}

/** A package's purl; one without (rare in SBOMs) gets a generic purl so the product names it. */
function purlOf(p: { name: string; version: string; purl: string }): string {
  return p.purl || `pkg:generic/${encodeURIComponent(p.name)}@${encodeURIComponent(p.version)}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
