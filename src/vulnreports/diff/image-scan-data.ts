import type { Kysely } from "kysely";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import type { ImagePackage } from "./package-diff.ts";
import { parseMatches, type StoredMatch } from "./stored-match.ts";

/** What the scanner knows of one image manifest. */
export interface ImageScanData {
  /** done, pending, scanning, failed, or not_scanned when the image has no scan row. */
  state: string;
  reason: string;
  /** The SBOM manifest the packages come from and whether it was pushed or generated; "" before. */
  sbomDigest: string;
  sbomSource: string;
  /** The latest report generation; 0 before the first report. */
  generation: number;
  /** When that report was made; "" without one. */
  reportTime: string;
  /** The packages of the SBOM in use, with their origin (source package) when known. */
  packages: (ImagePackage & { origin: string })[];
  matches: StoredMatch[];
}

/**
 * Reads the scan state, packages and latest report of image manifest `digest` of a repo.
 * Packages and matches are read only for a finished scan: a pending or failed image has no
 * complete data to compare.
 */
export async function loadImageScanData(
  db: Kysely<MetadataSchema>,
  repoUid: string,
  digest: string,
): Promise<ImageScanData> {
  const scan = await db
    .selectFrom("image_scans")
    .select(["state", "reason", "generation", "sbom_digest", "sbom_source"])
    .where("repo_uid", "=", repoUid)
    .where("digest", "=", digest)
    .executeTakeFirst();
  const empty = {
    generation: 0,
    reportTime: "",
    packages: [],
    matches: [],
    sbomDigest: "",
    sbomSource: "",
  };
  if (!scan) return { state: "not_scanned", reason: "", ...empty };
  if (scan.state !== "done") return { ...empty, state: scan.state, reason: scan.reason };
  const packages = await db
    .selectFrom("image_packages")
    .select(["name", "version", "purl", "ecosystem", "origin"])
    .where("repo_uid", "=", repoUid)
    .where("image_digest", "=", digest)
    .execute();
  const report = await db
    .selectFrom("vuln_reports")
    .select(["matches", "create_time"])
    .where("repo_uid", "=", repoUid)
    .where("digest", "=", digest)
    .where("generation", "=", scan.generation)
    .executeTakeFirst();
  return {
    state: "done",
    reason: scan.reason,
    sbomDigest: scan.sbom_digest,
    sbomSource: scan.sbom_source,
    generation: scan.generation,
    reportTime: report?.create_time ?? "",
    packages,
    matches: report ? parseMatches(report.matches) : [],
  };
}
