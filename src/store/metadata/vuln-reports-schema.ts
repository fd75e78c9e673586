/**
 * Table shapes of vulnerability reports (migration 0006). An "image" here is one image
 * manifest (never an index: an index's platform manifests are scanned one by one).
 */

/** One image manifest's scan state; also the scan queue. */
export interface ImageScansTable {
  repo_uid: string;
  digest: string;
  /** pending → scanning → done | failed; a done image with rematch = 1 is matched again. */
  state: "pending" | "scanning" | "done" | "failed";
  /** Why the scan failed, or why the SBOM in use was chosen over another; "" otherwise. */
  reason: string;
  /** 1 when advisory data touching its packages changed since the last report. */
  rematch: number;
  attempts: number;
  /** When a worker claimed it; a claim older than the scan time limit is taken over. */
  claim_time: string | null;
  /** The referrer manifest whose SBOM supplies the packages; "" before a scan. */
  sbom_digest: string;
  /** "pushed" or "generated". */
  sbom_source: string;
  architecture: string;
  os: string;
  /** From the image's os-release, e.g. "wolfi", "alpine 3.20", "debian 12"; "" if none. */
  distro: string;
  /** Config plus layers, in bytes. */
  size: string | number | bigint;
  /** The latest report generation; 0 before the first report. */
  generation: number;
  create_time: string;
  update_time: string;
}

/** Every SBOM known for an image, pushed or generated, parsed or not. */
export interface ImageSbomsTable {
  repo_uid: string;
  image_digest: string;
  /** The referrer manifest's digest. */
  sbom_digest: string;
  source: "pushed" | "generated";
  /** e.g. "spdx-2.3", "cyclonedx-1.5". */
  format: string;
  state: "parsed" | "failed";
  reason: string;
  package_count: number;
  create_time: string;
}

/** The packages of the SBOM in use for an image. */
export interface ImagePackagesTable {
  repo_uid: string;
  image_digest: string;
  sbom_digest: string;
  name: string;
  version: string;
  purl: string;
  /** The purl type: apk, deb, pypi, npm, maven, golang, …; "" without a purl. */
  ecosystem: string;
  license: string;
  /** The source package (apk origin, dpkg Source), when it differs from the name. */
  origin: string;
}

/** One report generation of one image; every recomputation adds a row. */
export interface VulnReportsTable {
  repo_uid: string;
  digest: string;
  generation: number;
  /** JSON array of the v1 VulnerabilityMatch shape (reference §3.9). */
  matches: string;
  /** JSON {CRITICAL: n, HIGH: n, …, cveIds…} for the daily counts. */
  counts: string;
  scanner_version: string;
  /** The newest advisory or metadata update_time the matching saw. */
  db_time: string;
  create_time: string;
}
