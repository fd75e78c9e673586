import type { Kysely } from "kysely";

/**
 * Finds the images holding a subpackage of a source package: advisories name the source
 * (an apk origin, a dpkg Source), and a new one marks those images for re-matching.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("image_packages_origin")
    .on("image_packages")
    .columns(["origin", "repo_uid", "image_digest"])
    .execute();
}
