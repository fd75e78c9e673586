import type { Kysely } from "kysely";
import { failedPrecondition, type LadingError } from "../errors/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { parentOf } from "../uidp/index.ts";

/** The PreconditionFailure violation type of each document still to accept. */
export const termsViolationType = "TERMS_NOT_ACCEPTED";

/** How long a group's answer is reused by default: acceptance elsewhere shows within this. */
export const defaultTermsCacheMs = 5_000;

/** Decides whether content under a group may be pulled, by the required terms documents. */
export interface TermsGate {
  /** The documents required by the server (--required-terms). */
  readonly required: readonly string[];
  /** The required documents not accepted on `groupUid` nor any of its ancestors, sorted. */
  missing(groupUid: string): Promise<string[]>;
  /** Throws {@link termsError} when a document is missing for `groupUid`. */
  require(groupUid: string, domain: string): Promise<void>;
  /** Drops cached answers (this process just recorded an acceptance). */
  forget(): void;
}

/** The uid and every ancestor of `uid`, nearest first. */
export function groupChain(uid: string): string[] {
  const chain: string[] = [];
  for (let at = uid; at !== ""; at = parentOf(at)) chain.push(at);
  return chain;
}

/**
 * FAILED_PRECONDITION `Precondition failed: terms not accepted: <ids>` with one violation per
 * missing document (type TERMS_NOT_ACCEPTED, subject the document id).
 */
export function termsError(domain: string, missing: readonly string[]): LadingError {
  return failedPrecondition(
    domain,
    `terms not accepted: ${missing.join(", ")}`,
    missing.map((id) => ({
      type: termsViolationType,
      subject: id,
      description: `terms document ${id} must be accepted for this organisation`,
    })),
  );
}

/**
 * Creates the gate. Answers are cached per group for `cacheMs`; an acceptance recorded in this
 * process clears the cache at once (forget), one recorded by another process shows within
 * `cacheMs`. With no required documents every check passes without a query.
 */
export function createTermsGate(
  db: Kysely<MetadataSchema>,
  required: readonly string[],
  cacheMs = defaultTermsCacheMs,
): TermsGate {
  const cache = new Map<string, { until: number; missing: Promise<string[]> }>();

  async function load(groupUid: string): Promise<string[]> {
    const rows = await db
      .selectFrom("terms_acceptances")
      .select("doc_id")
      .where("parent_uid", "in", groupChain(groupUid))
      .where("doc_id", "in", [...required])
      .execute();
    const accepted = new Set(rows.map((r) => r.doc_id));
    return required.filter((id) => !accepted.has(id)).sort();
  }

  const gate: TermsGate = {
    required,
    missing(groupUid) {
      if (required.length === 0 || groupUid === "") return Promise.resolve([]);
      const time = Date.now();
      const hit = cache.get(groupUid);
      if (hit && hit.until > time) return hit.missing;
      if (cache.size > 10_000) cache.clear();
      const missing = load(groupUid);
      cache.set(groupUid, { until: time + cacheMs, missing });
      missing.catch(() => cache.delete(groupUid));
      return missing;
    },
    async require(groupUid, domain) {
      const missing = await gate.missing(groupUid);
      if (missing.length > 0) throw termsError(domain, missing);
    },
    forget() {
      cache.clear();
    },
  };
  return gate;
}
