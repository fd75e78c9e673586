import type { Kysely } from "kysely";
import {
  indexMediaTypes,
  isIndex,
  type ParsedManifest,
  platformArchitecture,
  readJsonBlob,
} from "../../registry/image-manifests.ts";
import type { TermsGate } from "../../registry/terms-gate.ts";
import type { BlobStore } from "../../store/blobs/index.ts";
import type { MetadataSchema, VulnReportsTable } from "../../store/metadata/index.ts";

/** Most platform manifests of one index whose reports are merged. */
export const maxIndexManifests = 64;

/** What the report endpoints read from. */
export interface ReportsContext {
  db: Kysely<MetadataSchema>;
  /** Index manifests are read from here to find their platform manifests. */
  blobs: BlobStore;
  /** Reports show what an image holds: like a pull, they wait for the required terms. */
  termsGate?: TermsGate;
}

/** The image manifests behind a stored manifest: itself, or an index's platform manifests. */
export interface ImageManifests {
  /** False when the repo holds no manifest with this digest. */
  exists: boolean;
  /** Image manifest digests, the default platform (linux/amd64) first. */
  digests: string[];
}

/**
 * The image manifests of `digest` in `repoUid`. An index lists its platforms' manifests (at
 * most 64, attestation manifests with an `unknown` platform left out); anything else is one.
 */
export async function imageManifestsOf(
  ctx: ReportsContext,
  repoUid: string,
  digest: string,
): Promise<ImageManifests> {
  const stored = await ctx.db
    .selectFrom("manifests")
    .select("media_type")
    .where("repo_uid", "=", repoUid)
    .where("digest", "=", digest)
    .executeTakeFirst();
  if (!stored) return { exists: false, digests: [] };
  if (stored.media_type !== "" && !indexMediaTypes.has(stored.media_type))
    return { exists: true, digests: [digest] };
  const manifest = await readJsonBlob<ParsedManifest>(ctx.blobs, digest);
  if (!manifest || !isIndex(stored.media_type, manifest))
    return { exists: true, digests: [digest] };
  const platforms = (manifest.manifests ?? [])
    .filter((d) => typeof d.digest === "string" && platformArchitecture(d.platform) !== undefined)
    .slice(0, maxIndexManifests);
  const rank = (arch: string | undefined) => (arch === "amd64" ? 0 : 1);
  platforms.sort(
    (a, b) => rank(platformArchitecture(a.platform)) - rank(platformArchitecture(b.platform)),
  );
  return { exists: true, digests: [...new Set(platforms.map((d) => d.digest))] };
}

/** One image manifest's latest report generation. */
export interface LatestGeneration {
  digest: string;
  generation: number;
}

/**
 * The latest report generation of each of `digests` that has one: read from the primary key
 * alone, so checking whether a cached report is still current costs no report bytes.
 */
export async function latestGenerations(
  db: Kysely<MetadataSchema>,
  repoUid: string,
  digests: readonly string[],
): Promise<LatestGeneration[]> {
  const out: LatestGeneration[] = [];
  for (const digest of digests) {
    const row = await db
      .selectFrom("vuln_reports")
      .select("generation")
      .where("repo_uid", "=", repoUid)
      .where("digest", "=", digest)
      .orderBy("generation", "desc")
      .limit(1)
      .executeTakeFirst();
    if (row) out.push({ digest, generation: Number(row.generation) });
  }
  return out;
}

/** The report rows of `generations`. */
export async function reportRows(
  db: Kysely<MetadataSchema>,
  repoUid: string,
  generations: readonly LatestGeneration[],
): Promise<VulnReportsTable[]> {
  const out: VulnReportsTable[] = [];
  for (const { digest, generation } of generations) {
    out.push(
      await db
        .selectFrom("vuln_reports")
        .selectAll()
        .where("repo_uid", "=", repoUid)
        .where("digest", "=", digest)
        .where("generation", "=", generation)
        .executeTakeFirstOrThrow(),
    );
  }
  return out;
}
