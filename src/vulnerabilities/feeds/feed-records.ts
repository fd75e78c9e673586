/**
 * What every feed parser produces: advisories and vulnerability metadata in one normalised
 * shape, whatever the source format. The import engine stores these; parsers never touch the
 * store.
 */
import type { OsvAffected } from "../../versions/index.ts";

/** The event kinds of an advisory, as the advisory YAML documents name them (formats §1.1). */
export const advisoryEventTypes = [
  "detection",
  "true-positive-determination",
  "fixed",
  "false-positive-determination",
  "analysis-not-planned",
  "fix-not-planned",
  "pending-upstream-fix",
  "patched",
] as const;

export type AdvisoryEventType = (typeof advisoryEventTypes)[number];

/** The false-positive kinds (formats §1.1), each mapping to a VEX justification. */
export const falsePositiveTypes = [
  "vulnerability-record-analysis-contested",
  "component-vulnerability-mismatch",
  "vulnerable-code-version-not-used",
  "vulnerable-code-not-included-in-package",
  "vulnerable-code-not-in-execution-path",
  "vulnerable-code-cannot-be-controlled-by-adversary",
  "inline-mitigations-exist",
] as const;

export type FalsePositiveType = (typeof falsePositiveTypes)[number];

/** How a detection was made. */
export interface DetectionRecord {
  type: "manual" | "nvdapi" | "scan/v1";
  cpeSearched?: string;
  cpeFound?: string;
  subpackageName?: string;
  componentId?: string;
  componentName?: string;
  componentVersion?: string;
  componentType?: string;
  componentLocation?: string;
  scanner?: string;
}

/** One event of an advisory's timeline. Only the fields of its type are set. */
export interface AdvisoryEventRecord {
  /** RFC 3339 UTC with milliseconds, e.g. 2024-05-01T10:00:00.000Z. */
  timestamp: string;
  type: AdvisoryEventType;
  detection?: DetectionRecord;
  /** fixed: the first package version with the fix. */
  fixedVersion?: string;
  /** false-positive-determination. */
  falsePositiveType?: FalsePositiveType;
  /** patched. */
  patchedVersions?: string[];
  /** Free text; true-positive, false-positive, fix-not-planned, pending, analysis-not-planned. */
  note?: string;
}

/** One advisory: one vulnerability in one artifact (package or image). */
export interface AdvisoryRecord {
  /** Unique within the source; the same entry re-imported has the same key. */
  key: string;
  /**
   * The document the entry came from (a package's YAML file, an OSV record id, an OpenVEX
   * document id). Re-importing a document withdraws its entries that are gone.
   */
  document: string;
  /** CGA-xxxx-xxxx-xxxx; derived with deriveAdvisoryId when the source has none. */
  advisoryId: string;
  artifactName: string;
  /** apk, image, library, … */
  artifactType: string;
  /** x86_64, aarch64, …; empty for every architecture. */
  artifactArchitecture: string;
  componentName: string;
  componentType: string;
  componentLocation: string;
  /** CVE, GHSA, GO, … ids of the same vulnerability; unique, never the advisoryId. */
  aliases: string[];
  /** Sorted by timestamp, oldest first; at least one. */
  events: AdvisoryEventRecord[];
  /** wolfi, chainguard, or the OSV ecosystem the entry came from. */
  packageNamespace: string;
  /** Set when the source itself marks the entry withdrawn (OSV `withdrawn`). */
  withdrawn?: { time: string; reason: string };
  /** OSV's version ranges for this package, when the source has them; matching uses them. */
  affected?: OsvAffected[];
}

/** The CVSS version of a vector and of the base score computed from it. */
export type CvssVersion = "2.0" | "3.0" | "3.1" | "4.0";

/** A CVSS (or other) severity: the vector as given, and the base score computed from it. */
export interface SeverityRecord {
  type: "CVSS_V2" | "CVSS_V3" | "CVSS_V4" | "UBUNTU";
  /** The vector string (or the value for UBUNTU). */
  score: string;
  /**
   * The base score: the source's (NVD) or computed from the vector (withBaseScores);
   * undefined when it cannot be computed.
   */
  baseScore?: number;
  /** The CVSS version the base score is of, set with it. */
  version?: CvssVersion;
}

/** A typed link (the OSV reference types). */
export interface ReferenceRecord {
  type: string;
  url: string;
}

/**
 * What one source says about one vulnerability id. Fields a source does not carry are left
 * undefined and keep what another source stored.
 */
export interface VulnerabilityRecord {
  id: string;
  summary?: string;
  details?: string;
  aliases?: string[];
  references?: ReferenceRecord[];
  severities?: SeverityRecord[];
  cwes?: string[];
  published?: string;
  modified?: string;
  kev?: {
    dateAdded: string;
    dueDate?: string;
    knownRansomwareCampaignUse?: string;
    vulnerabilityName?: string;
  };
  epss?: { score: number; percentile: number; date: string };
  /** Set when the source withdrew or rejected the id. */
  withdrawn?: { time: string; reason: string };
}

/** A record a parser could not use, with where it was. */
export interface Rejection {
  file: string;
  /** e.g. "line 12", "advisories[3] (line 40)", "vulnerabilities[5]". */
  position: string;
  reason: string;
}

/** What a parser returns for one input. */
export interface ParsedFeed {
  advisories: AdvisoryRecord[];
  vulnerabilities: VulnerabilityRecord[];
  rejected: Rejection[];
  /**
   * Documents with at least one rejected entry, or that could not be read at all: their
   * stored entries are never withdrawn by this import.
   */
  damagedDocuments: string[];
}

/** One input to a parser. */
export interface FeedInput {
  /** Shown in rejections: a path, or "-" for stdin. */
  file: string;
  text: string;
}

/** A feed format's parser. */
export type FeedParser = (input: FeedInput) => ParsedFeed;
