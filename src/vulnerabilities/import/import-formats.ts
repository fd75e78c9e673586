import { feedParsers } from "../feeds/feed-formats.ts";
import type { FeedParser } from "../feeds/feed-records.ts";
import { metadataParsers } from "../feeds/metadata-formats.ts";

/** A format `lading admin import` reads. */
export interface ImportFormatSpec {
  parser: FeedParser;
  /** File name endings read from folders (a file named on the command line is always read). */
  extensions: readonly string[];
  /** Yields advisories (withdrawn by absence), not only vulnerability metadata. */
  advisories: boolean;
}

/** Every import format by its command-line name. */
export const importFormats = {
  advisories: { parser: feedParsers.advisories, extensions: [".yaml", ".yml"], advisories: true },
  osv: { parser: feedParsers.osv, extensions: [".json"], advisories: true },
  openvex: { parser: feedParsers.openvex, extensions: [".json"], advisories: true },
  nvd: { parser: metadataParsers.nvd, extensions: [".json", ".json.gz"], advisories: false },
  kev: { parser: metadataParsers.kev, extensions: [".json"], advisories: false },
  epss: { parser: metadataParsers.epss, extensions: [".csv", ".csv.gz"], advisories: false },
} as const satisfies Record<string, ImportFormatSpec>;

export type ImportFormatName = keyof typeof importFormats;
