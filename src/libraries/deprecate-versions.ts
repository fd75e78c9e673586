import type { Kysely } from "kysely";
import { type EventActor, recordEvents } from "../events/index.ts";
import { now } from "../rpc/index.ts";
import { type MetadataSchema, runInTransaction } from "../store/metadata/index.ts";
import { artifactUid, type Ecosystem } from "./ecosystems.ts";
import { LibraryError } from "./library-error.ts";

/** Longest deprecation message, in characters; npm's own messages are a sentence or two. */
export const maxDeprecationLength = 1024;

/** Deprecations to set on published versions of one artifact. */
export interface DeprecationRequest {
  orgUid: string;
  ecosystem: Ecosystem;
  /** Canonical name. */
  name: string;
  displayName: string;
  /** Version → its message; "" lifts the deprecation. Versions not named stay as they are. */
  messages: ReadonlyMap<string, string>;
  /** Who changed them, for the events. */
  actor: EventActor;
  /** The repository URL, the events' source. */
  source: string;
}

/**
 * The deprecation a version shows: its own once one was set (`deprecated` not null), else the
 * `deprecated` its manifest was published with, else none ("").
 */
export function deprecationOf(row: { deprecated?: string | null; metadata: string }): string {
  if (row.deprecated !== null && row.deprecated !== undefined) return row.deprecated;
  const published = (JSON.parse(row.metadata) as { deprecated?: unknown }).deprecated;
  return typeof published === "string" ? published : "";
}

/**
 * Sets the deprecation of published versions in one transaction (`npm deprecate`): every
 * version named must be published (404 otherwise, and nothing changes). Each version whose
 * deprecation changes records `dev.lading.libraries.deprecated.v1` (or `.undeprecated.v1` when
 * lifted) and moves the artifact's `update_time`, so every replica's packument cache sees it;
 * setting what a version already shows changes and records nothing. Returns the versions changed.
 */
export function deprecateVersions(
  db: Kysely<MetadataSchema>,
  request: DeprecationRequest,
): Promise<string[]> {
  for (const [version, message] of request.messages) {
    if (message.length > maxDeprecationLength) {
      throw new LibraryError(
        400,
        `the deprecation message of ${version} is longer than ${maxDeprecationLength} characters`,
      );
    }
  }
  return runInTransaction(db, async (trx) => {
    const uid = artifactUid(request.ecosystem, request.orgUid, request.name);
    const time = now();
    // Writing the artifact row first locks it (PostgreSQL) until commit, as a publish or a
    // dist-tag change does, so concurrent changes of one package queue instead of interleaving.
    const touched = await trx
      .updateTable("library_artifacts")
      .set({ update_time: time })
      .where("uid", "=", uid)
      .executeTakeFirst();
    if (Number(touched.numUpdatedRows) === 0) {
      throw new LibraryError(404, `package ${request.displayName} not found`);
    }
    const versions = [...request.messages.keys()];
    const rows = await trx
      .selectFrom("library_versions")
      .select(["uid", "version", "deprecated", "metadata"])
      .where("artifact_uid", "=", uid)
      .where("version", "in", versions.length > 0 ? versions : [""])
      .execute();
    const byVersion = new Map(rows.map((row) => [row.version, row]));
    const missing = versions.find((v) => !byVersion.has(v));
    if (missing !== undefined) {
      throw new LibraryError(404, `${request.displayName}@${missing} is not published`);
    }
    const changed: string[] = [];
    for (const [version, message] of request.messages) {
      const row = byVersion.get(version);
      if (!row || deprecationOf(row) === message) continue;
      await trx
        .updateTable("library_versions")
        .set({ deprecated: message, update_time: time })
        .where("uid", "=", row.uid)
        .execute();
      changed.push(version);
    }
    if (changed.length === 0) {
      // Nothing to tell anyone: leave the artifact's stamp (and the packument caches) alone.
      throw new NothingChanged();
    }
    await recordEvents(
      trx,
      changed.map((version) => {
        const message = request.messages.get(version) ?? "";
        return {
          type: message
            ? "dev.lading.libraries.deprecated.v1"
            : "dev.lading.libraries.undeprecated.v1",
          source: request.source,
          subject: uid,
          groupUid: request.orgUid,
          actor: request.actor,
          body: {
            artifact_id: uid,
            ecosystem: request.ecosystem,
            name: request.displayName,
            version,
            message,
            when: time,
          },
        };
      }),
    );
    return changed;
  }).catch((error: unknown) => {
    if (error instanceof NothingChanged) return [];
    throw error;
  });
}

/** Rolls back the artifact's `update_time` when no version changed. */
class NothingChanged extends Error {}
