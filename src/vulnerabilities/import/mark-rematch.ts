import type { Kysely } from "kysely";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import { type MetadataOwner, publicMetadata } from "../metadata-view.ts";
import { publicAdvisoriesGroupUid } from "../public-advisories.ts";

/** Names per statement, well under SQLite's bound-parameter limit. */
const batch = 500;

/**
 * Marks for re-matching every scanned image that holds a package named, or with an origin
 * named, one of `artifactNames`: the images an advisory change can touch. Images still being
 * scanned are marked too: their report may be computed from advisories read before this
 * change committed, and computeReport clears the mark only before it reads them. One
 * bounded statement per 500 names and column, each through its index (image_packages_name,
 * image_packages_origin), so the work follows the names, not the number of images. For an
 * organisation's own data (`owner`), only that organisation's images are marked: nothing it
 * imports applies to another's, so it costs them no re-matching either.
 */
export async function markRematch(
  db: Kysely<MetadataSchema>,
  artifactNames: Iterable<string>,
  owner: MetadataOwner = publicMetadata,
): Promise<void> {
  const names = [...new Set(artifactNames)];
  for (let i = 0; i < names.length; i += batch) {
    const part = names.slice(i, i + batch);
    for (const column of ["name", "origin"] as const) {
      let update = db
        .updateTable("image_scans")
        .set({ rematch: 1 })
        .where("state", "in", ["done", "scanning"])
        .where("rematch", "=", 0);
      if (owner !== publicMetadata) {
        update = update.where("repo_uid", "in", (eb) =>
          eb.selectFrom("repos").select("uid").where("root_uid", "=", owner),
        );
      }
      await update
        .where((eb) =>
          eb(
            eb.refTuple("repo_uid", "digest"),
            "in",
            eb
              .selectFrom("image_packages")
              .select(["repo_uid", "image_digest"])
              .where(column, "in", part)
              .$asTuple("repo_uid", "image_digest"),
          ),
        )
        .execute();
    }
  }
}

/**
 * Marks the images an advisory of one of the vulnerability `ids` (an alias of the advisory)
 * can touch: metadata that reports show (summary, scores, links) changed for them. For an
 * organisation's copies (`owner`), the advisories it may use and its own images only.
 */
export async function markRematchForIds(
  db: Kysely<MetadataSchema>,
  ids: Iterable<string>,
  owner: MetadataOwner = publicMetadata,
): Promise<void> {
  const list = [...new Set(ids)];
  const names = new Set<string>();
  for (let i = 0; i < list.length; i += batch) {
    let query = db
      .selectFrom("advisory_aliases")
      .innerJoin("advisories", "advisories.uid", "advisory_aliases.advisory_uid")
      .select("advisories.artifact_name")
      .distinct()
      .where("advisory_aliases.alias", "in", list.slice(i, i + batch));
    if (owner !== publicMetadata) {
      query = query.where((eb) =>
        eb.or([
          eb("advisories.parent_uid", "=", publicAdvisoriesGroupUid),
          eb("advisories.parent_uid", "=", owner),
          eb.and([
            eb("advisories.parent_uid", ">", `${owner}/`),
            eb("advisories.parent_uid", "<", `${owner}0`),
          ]),
        ]),
      );
    }
    for (const row of await query.execute()) names.add(row.artifact_name);
  }
  await markRematch(db, names, owner);
}
