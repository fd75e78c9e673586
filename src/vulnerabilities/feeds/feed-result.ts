import type { AdvisoryRecord, ParsedFeed, VulnerabilityRecord } from "./feed-records.ts";

/**
 * Collects one parser run's output. Every rejection names the document it damaged, so a
 * rejected entry can never cause the import to withdraw what the store already holds for it.
 */
export class FeedResult {
  readonly #feed: ParsedFeed = {
    advisories: [],
    vulnerabilities: [],
    rejected: [],
    damagedDocuments: [],
  };
  readonly #damaged = new Set<string>();

  readonly file: string;

  constructor(file: string) {
    this.file = file;
  }

  /** Keeps an advisory. */
  advisory(record: AdvisoryRecord): void {
    this.#feed.advisories.push(record);
  }

  /** Keeps vulnerability metadata. */
  vulnerability(record: VulnerabilityRecord): void {
    this.#feed.vulnerabilities.push(record);
  }

  /** Records a rejection at `position` and marks `document` damaged. */
  reject(document: string, position: string, reason: string): void {
    this.#feed.rejected.push({ file: this.file, position, reason });
    if (!this.#damaged.has(document)) {
      this.#damaged.add(document);
      this.#feed.damagedDocuments.push(document);
    }
  }

  /** The result; the collector must not be used afterwards. */
  done(): ParsedFeed {
    return this.#feed;
  }
}

/**
 * An empty result and a rejection recorder for the metadata formats (NVD, KEV, EPSS): their
 * records belong to no document, so a rejection damages nothing that could be withdrawn.
 */
export function metadataFeed(file: string): {
  parsed: ParsedFeed;
  reject(position: string, reason: string): void;
} {
  const parsed: ParsedFeed = {
    advisories: [],
    vulnerabilities: [],
    rejected: [],
    damagedDocuments: [],
  };
  return { parsed, reject: (position, reason) => parsed.rejected.push({ file, position, reason }) };
}
