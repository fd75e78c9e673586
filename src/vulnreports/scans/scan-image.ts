import type { Kysely } from "kysely";
import type { BlobStore } from "../../store/blobs/index.ts";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import type { ImagePackagesTable } from "../../store/metadata/vuln-reports-schema.ts";
import { parsePackageUrl } from "../../vulnerabilities/feeds/package-url.ts";
import type { Distro } from "../layers/os-release.ts";
import type { SbomPackage } from "../sbom/index.ts";
import { attestedImages } from "./buildx-attestation.ts";
import { scanLayersOf, storeGeneratedSbom } from "./generated-sbom.ts";
import { notAnImage, readScanManifest } from "./image-manifest.ts";
import { readPushedSboms } from "./pushed-sboms.ts";
import { readJsonCapped } from "./read-blob.ts";

const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
/** Image configs carry the build history; the largest real ones stay well under this. */
const MAX_CONFIG_BYTES = 8 * 1024 * 1024;

/** What a scan needs beyond the image. */
export interface ScanEnv {
  db: Kysely<MetadataSchema>;
  blobs: BlobStore;
  /** The registry URL, for the generated SBOM's namespace and the image's purl. */
  registryUrl: string;
  toolVersion: string;
  signal: AbortSignal;
  /** Packages one image may list; more fails the scan (default 200,000). */
  bounds?: { maxPackages: number };
}

/** One SBOM recorded for the image (an `image_sboms` row without times). */
export interface SbomRecord {
  sbomDigest: string;
  source: "pushed" | "generated";
  format: string;
  state: "parsed" | "failed";
  reason: string;
  packageCount: number;
}

/** The outcome of one scan. Store failures are thrown instead: they may pass. */
export type ScanOutcome =
  | { kind: "gone"; reason: string }
  /** A BuildKit attestation manifest: the images its SBOM is for are scanned again. */
  | { kind: "attestation"; images: string[] }
  | { kind: "failed"; reason: string; sboms: SbomRecord[] }
  | {
      kind: "done";
      sboms: SbomRecord[];
      sbomDigest: string;
      sbomSource: "pushed" | "generated";
      reason: string;
      architecture: string;
      os: string;
      distro: string;
      size: number;
      packages: Omit<ImagePackagesTable, "repo_uid" | "image_digest" | "sbom_digest">[];
    };

/**
 * Scans image `digest` of repository `repoUid`: reads its config, its SBOM referrers (the
 * newest one that parses wins), and when none parses builds an SBOM from its layers and stores
 * it as a referrer. "gone" means there is nothing to scan (deleted, an index, not an image).
 * SBOMs come from referrers, cosign's attestation tags, and BuildKit attestation manifests
 * recorded against the image when they were claimed ("attestation").
 */
export async function scanImage(
  env: ScanEnv,
  repoUid: string,
  digest: string,
): Promise<ScanOutcome> {
  const { db, blobs } = env;
  const row = await db
    .selectFrom("manifests")
    .select(["media_type", "size", "create_time"])
    .where("repo_uid", "=", repoUid)
    .where("digest", "=", digest)
    .executeTakeFirst();
  if (!row) return { kind: "gone", reason: "the manifest is not in the repository" };
  const json = await readJsonCapped(blobs, digest, MAX_MANIFEST_BYTES, "the manifest");
  if (json.error !== undefined) return { kind: "failed", reason: json.error, sboms: [] };
  const manifest = readScanManifest(json.value, row.media_type);
  const skip = notAnImage(manifest);
  if (skip !== undefined) {
    const images = await attestedImages(blobs, manifest);
    return images.length > 0 ? { kind: "attestation", images } : { kind: "gone", reason: skip };
  }
  const config = manifest.config as NonNullable<typeof manifest.config>;
  const configJson = await readJsonCapped(blobs, config.digest, MAX_CONFIG_BYTES, "the config");
  if (configJson.error !== undefined)
    return { kind: "failed", reason: configJson.error, sboms: [] };
  const platform = platformOf(configJson.value);
  const size = manifest.layers.reduce((sum, l) => sum + l.size, config.size);

  const generated = await db
    .selectFrom("image_sboms")
    .select("sbom_digest")
    .where("repo_uid", "=", repoUid)
    .where("image_digest", "=", digest)
    .where("source", "=", "generated")
    .execute();
  const pushed = await readPushedSboms(
    db,
    blobs,
    repoUid,
    digest,
    new Set(generated.map((g) => g.sbom_digest)),
  );
  const sboms: SbomRecord[] = pushed.map((s) => ({
    sbomDigest: s.digest,
    source: "pushed",
    format: s.format,
    state: s.document ? "parsed" : "failed",
    reason: s.error ?? "",
    packageCount: s.document?.packages.length ?? 0,
  }));
  const winner = pushed.findLast((s) => s.document !== undefined);
  const maxPackages = env.bounds?.maxPackages ?? DEFAULT_MAX_PACKAGES;
  if (winner?.document) {
    const packages = winner.document.packages;
    if (packages.length > maxPackages) {
      return {
        kind: "failed",
        reason: tooMany("the SBOM lists", packages.length, maxPackages),
        sboms,
      };
    }
    return {
      kind: "done",
      sboms,
      sbomDigest: winner.digest,
      sbomSource: "pushed",
      reason: "",
      ...platform,
      distro: distroOfPurls(packages),
      size,
      packages: packages.map(fromSbom),
    };
  }

  const scan = await scanLayersOf(blobs, manifest.layers, env.signal);
  if (scan.error !== undefined) return { kind: "failed", reason: scan.error, sboms };
  if (scan.value.packages.length > maxPackages) {
    const reason = tooMany(
      "the image's package databases list",
      scan.value.packages.length,
      maxPackages,
    );
    return { kind: "failed", reason, sboms };
  }
  const path = await repoPath(db, repoUid);
  const sbomDigest = await storeGeneratedSbom(
    db,
    blobs,
    { registryUrl: env.registryUrl, path, digest },
    {
      repoUid,
      digest,
      mediaType: row.media_type,
      size: Number(row.size),
      createTime: row.create_time,
    },
    scan.value.packages,
    env.toolVersion,
  );
  const failedPushed = pushed.filter((s) => s.error !== undefined);
  sboms.push({
    sbomDigest,
    source: "generated",
    format: "spdx-2.3",
    state: "parsed",
    reason: "",
    packageCount: scan.value.packages.length,
  });
  return {
    kind: "done",
    sboms,
    sbomDigest,
    sbomSource: "generated",
    reason:
      failedPushed.length > 0
        ? `no pushed SBOM could be read (${failedPushed[0].digest}: ${failedPushed[0].error}), so Lading generated one`
        : "",
    ...platform,
    distro: distroName(scan.value.distro),
    size,
    // The SBOM keeps every location; the report lists a package once, whatever its paths.
    packages: uniqueByPurl(scan.value.packages).map((p) => ({
      name: p.name,
      version: p.version,
      purl: p.purl,
      ecosystem: purlType(p.purl),
      license: p.licence ?? "",
      origin: p.origin ?? "",
    })),
  };
}

const DEFAULT_MAX_PACKAGES = 200_000;

function tooMany(what: string, count: number, max: number): string {
  return `${what} ${count} packages, more than the ${max} a scan may hold (--scan-max-packages)`;
}

function platformOf(config: Record<string, unknown>): { architecture: string; os: string } {
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  const arch = text(config.architecture);
  const variant = text(config.variant);
  return { architecture: arch && variant ? `${arch}/${variant}` : arch, os: text(config.os) };
}

function fromSbom(p: SbomPackage) {
  return {
    name: p.name,
    version: p.version,
    purl: p.purl,
    ecosystem: p.ecosystem,
    license: p.licence,
    origin: "",
  };
}

/** `alpine 3.20`, `debian 12`, `wolfi`: the os-release ID and VERSION_ID. */
export function distroName(distro: Distro | undefined): string {
  if (!distro) return "";
  return distro.versionId ? `${distro.id} ${distro.versionId}` : distro.id;
}

/**
 * The distribution a pushed SBOM names through the `distro` qualifier of its apk or deb purls:
 * syft writes `distro=alpine-3.20.3` or `debian-12`, trivy only the version (`3.20.3`), which
 * is then read with the purl namespace.
 */
export function distroOfPurls(packages: readonly SbomPackage[]): string {
  for (const p of packages) {
    if (p.ecosystem !== "apk" && p.ecosystem !== "deb") continue;
    const purl = parsePackageUrl(p.purl);
    const distro = purl?.qualifiers.distro?.toLowerCase();
    if (!distro) continue;
    if (!/^[a-z]/.test(distro))
      return purl?.namespace ? `${purl.namespace.toLowerCase()} ${distro}` : "";
    const dash = distro.indexOf("-");
    return dash > 0 ? `${distro.slice(0, dash)} ${distro.slice(dash + 1)}` : distro;
  }
  return "";
}

function purlType(purl: string): string {
  const slash = purl.indexOf("/");
  return purl.startsWith("pkg:") && slash > 4 ? purl.slice(4, slash).toLowerCase() : "";
}

/** `<org>/<repo>`, as clients name the repository. */
async function repoPath(db: Kysely<MetadataSchema>, repoUid: string): Promise<string> {
  const repo = await db
    .selectFrom("repos")
    .innerJoin("groups", "groups.uid", "repos.root_uid")
    .select(["repos.name as name", "groups.name as org"])
    .where("repos.uid", "=", repoUid)
    .executeTakeFirst();
  return repo ? `${repo.org}/${repo.name}` : repoUid;
}

function uniqueByPurl<T extends { purl: string }>(packages: readonly T[]): T[] {
  const seen = new Set<string>();
  return packages.filter((p) => {
    if (seen.has(p.purl)) return false;
    seen.add(p.purl);
    return true;
  });
}
