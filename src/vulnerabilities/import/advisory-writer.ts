import { randomBytes } from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import type { AdvisoriesTable, MetadataSchema } from "../../store/metadata/index.ts";
import { newChildUid } from "../../uidp/index.ts";
import { countAdvisoryChange } from "../advisory-changes.ts";
import type { AdvisoryRecord } from "../feeds/feed-records.ts";
import { metadataOwnerOf } from "../metadata-view.ts";
import { advisoryContent, type ImportTarget } from "./advisory-row.ts";
import type { ImportSummary } from "./import-summary.ts";
import { markRematch } from "./mark-rematch.ts";

/** Rows read and written per transaction: large enough to amortise, small enough to stay short. */
const batchSize = 10000;

type Existing = Pick<
  AdvisoriesTable,
  "uid" | "source_key" | "content_hash" | "withdrawn_time" | "withdrawn_reason"
>;

/**
 * Writes advisory records under one group and source: new entries are created, changed ones
 * updated in place (update_time moves only then), identical ones left alone, and entries that
 * disappear are withdrawn, never deleted. Each batch commits on its own, so an interrupted
 * import keeps what it wrote and a re-run skips it; withdrawal by absence happens only in
 * `finish`, after everything was read. In the same transaction as each change, the scanned
 * images holding a package the changed advisories name are marked for re-matching.
 */
export class AdvisoryWriter {
  readonly #db: Kysely<MetadataSchema>;
  readonly #target: ImportTarget;
  readonly #summary: ImportSummary;
  /** uids written or confirmed by this run. */
  readonly #seen = new Set<string>();
  /** Documents this run read in full. */
  readonly #documents = new Set<string>();
  /** Documents with a rejected entry: nothing of theirs is withdrawn by absence. */
  readonly #damaged = new Set<string>();

  constructor(db: Kysely<MetadataSchema>, target: ImportTarget, summary: ImportSummary) {
    this.#db = db;
    this.#target = target;
    this.#summary = summary;
  }

  /** The documents this run has read. */
  get documents(): string[] {
    return [...this.#documents];
  }

  /** Records a document as damaged: its stored entries stay as they are. */
  markDamaged(documents: Iterable<string>): void {
    for (const d of documents) this.#damaged.add(d);
  }

  /** Writes `records`, then withdraws the entries gone from the documents they came from. */
  async write(records: readonly AdvisoryRecord[]): Promise<void> {
    const byKey = new Map<string, AdvisoryRecord>();
    for (const r of records) byKey.set(r.key, r);
    const unique = [...byKey.values()];
    for (let i = 0; i < unique.length; i += batchSize) {
      await this.#writeBatch(unique.slice(i, i + batchSize));
    }
    const documents = [...new Set(unique.map((r) => r.document))];
    for (const d of documents) this.#documents.add(d);
    await this.#withdrawWhere(
      documents,
      (row) => !this.#seen.has(row.uid),
      (row) => `no longer in ${row.document}`,
    );
  }

  /**
   * Ends a full import of the source: entries of documents that neither this run nor
   * `knownDocuments` read are withdrawn.
   */
  async finish(knownDocuments: readonly string[] = []): Promise<void> {
    const kept = new Set([...this.#documents, ...knownDocuments, ...this.#damaged]);
    await this.#withdrawWhere(
      undefined,
      (row) => !kept.has(row.document),
      (row) => `document ${row.document} no longer in source ${this.#target.source}`,
    );
  }

  async #writeBatch(records: AdvisoryRecord[]): Promise<void> {
    const { parentUid, source } = this.#target;
    const time = new Date().toISOString();
    await this.#db.transaction().execute(async (trx) => {
      const existing = new Map<string, Existing>();
      const found = await trx
        .selectFrom("advisories")
        .select(["uid", "source_key", "content_hash", "withdrawn_time", "withdrawn_reason"])
        .where("parent_uid", "=", parentUid)
        .where("source", "=", source)
        .where(
          "source_key",
          "in",
          records.map((r) => r.key),
        )
        .execute();
      for (const row of found) existing.set(row.source_key, row);
      const inserts: AdvisoriesTable[] = [];
      let live = 0;
      const changedUids: string[] = [];
      const aliasRows: { alias: string; advisory_uid: string }[] = [];
      const touched = new Set<string>();
      const uids = childUids(records.length - existing.size);
      for (const record of records) {
        const old = existing.get(record.key);
        const uid = old?.uid ?? uids.next(parentUid);
        this.#seen.add(uid);
        const content = advisoryContent(record, uid, this.#target);
        const withdrawnTime = record.withdrawn?.time ?? null;
        const withdrawnReason = record.withdrawn?.reason ?? "";
        if (!old) {
          inserts.push({
            uid,
            parent_uid: parentUid,
            ...content,
            withdrawn_time: withdrawnTime,
            withdrawn_reason: withdrawnReason,
            create_time: time,
            update_time: time,
          });
          if (withdrawnTime) this.#summary.withdrawn++;
          else {
            this.#summary.created++;
            live++;
          }
        } else if (
          old.content_hash === content.content_hash &&
          (old.withdrawn_time === null) === (withdrawnTime === null)
        ) {
          this.#summary.unchanged++;
          continue;
        } else {
          await trx
            .updateTable("advisories")
            .set({
              ...content,
              withdrawn_time: withdrawnTime,
              withdrawn_reason: withdrawnReason,
              update_time: time,
            })
            .where("uid", "=", uid)
            .execute();
          changedUids.push(uid);
          if (withdrawnTime && old.withdrawn_time === null) {
            this.#summary.withdrawn++;
            live--;
          } else {
            this.#summary.updated++;
            if (!withdrawnTime && old.withdrawn_time !== null) live++;
          }
        }
        touched.add(record.artifactName);
        for (const alias of JSON.parse(content.aliases) as string[]) {
          aliasRows.push({ alias, advisory_uid: uid });
        }
      }
      if (changedUids.length > 0) {
        await trx.deleteFrom("advisory_aliases").where("advisory_uid", "in", changedUids).execute();
      }
      await insertChunked(trx, "advisories", inserts);
      await insertChunked(trx, "advisory_aliases", aliasRows);
      await countLive(trx, parentUid, live);
      if (inserts.length > 0 || changedUids.length > 0) await countAdvisoryChange(trx);
      await markRematch(trx, touched, metadataOwnerOf(parentUid));
    });
  }

  /** Withdraws the not-withdrawn entries of the source (in `documents`, if given) that `gone`. */
  async #withdrawWhere(
    documents: string[] | undefined,
    gone: (row: { uid: string; document: string }) => boolean,
    reason: (row: { uid: string; document: string }) => string,
  ): Promise<void> {
    if (documents?.length === 0) return;
    const { parentUid, source } = this.#target;
    const rows: { uid: string; document: string; artifact_name: string }[] = [];
    const chunks = documents ? chunk(documents, batchSize) : [undefined];
    for (const part of chunks) {
      let query = this.#db
        .selectFrom("advisories")
        .select(["uid", "document", "artifact_name"])
        .where("parent_uid", "=", parentUid)
        .where("source", "=", source)
        .where("withdrawn_time", "is", null);
      if (part) query = query.where("document", "in", part);
      rows.push(...(await query.execute()));
    }
    const leaving = rows.filter(gone);
    if (leaving.length === 0) return;
    const time = new Date().toISOString();
    for (const part of chunk(leaving, batchSize)) {
      await this.#db.transaction().execute(async (trx) => {
        for (const row of part) {
          await trx
            .updateTable("advisories")
            .set({ withdrawn_time: time, withdrawn_reason: reason(row), update_time: time })
            .where("uid", "=", row.uid)
            .execute();
        }
        await countLive(trx, parentUid, -part.length);
        await countAdvisoryChange(trx);
        await markRematch(
          trx,
          part.map((row) => row.artifact_name),
          metadataOwnerOf(parentUid),
        );
      });
    }
    this.#summary.withdrawn += leaving.length;
  }
}

/**
 * Moves the group's live-advisory counter (list_counts) by `delta` in the same transaction as
 * the change. Advisories are written only here, so the counter needs no triggers, and one
 * update per batch costs less than one per row.
 */
async function countLive(
  trx: Transaction<MetadataSchema>,
  parentUid: string,
  delta: number,
): Promise<void> {
  if (delta === 0) return;
  await trx
    .insertInto("list_counts")
    .values({ table_name: "advisories", parent_uid: parentUid, n: delta })
    .onConflict((oc) =>
      oc.columns(["table_name", "parent_uid"]).doUpdateSet((eb) => ({
        n: eb("list_counts.n", "+", eb.ref("excluded.n")),
      })),
    )
    .execute();
}

/** Child uids from one random draw per batch: one `randomBytes` call per uid is measurable. */
function childUids(count: number): { next(parent: string): string } {
  const bytes = randomBytes(Math.max(count, 0) * 8);
  let i = 0;
  return {
    next(parent) {
      if (i + 8 > bytes.length) return newChildUid(parent);
      const uid = `${parent}/${bytes.toString("hex", i, i + 8)}`;
      i += 8;
      return uid;
    },
  };
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const parts: T[][] = [];
  for (let i = 0; i < items.length; i += size) parts.push(items.slice(i, i + size));
  return parts;
}

/** Inserts rows in chunks small enough for SQLite's bound-parameter limit. */
async function insertChunked<T extends "advisories" | "advisory_aliases">(
  trx: Transaction<MetadataSchema>,
  table: T,
  rows: MetadataSchema[T][],
): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]).length;
  const perInsert = Math.max(1, Math.floor(30000 / columns));
  for (const part of chunk(rows, perInsert)) {
    // biome-ignore lint/suspicious/noExplicitAny: the row type follows the table chosen
    const anyTrx = trx as Transaction<any>;
    await anyTrx.insertInto(table).values(part).execute();
  }
}
