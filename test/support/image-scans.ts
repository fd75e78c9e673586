import type { TestServer } from "./server.ts";

/** One package row as the scan worker stores it. */
export interface PackageRow {
  name: string;
  version: string;
  purl: string;
  ecosystem: string;
  origin?: string;
}

/**
 * Stores a finished scan of image `digest` with `packages`, as the scan worker would, so the
 * matching can be driven without scanning layers.
 */
export async function storeScan(
  server: TestServer,
  repoUid: string,
  digest: string,
  image: { distro: string; architecture: string; size: number },
  packages: PackageRow[],
): Promise<void> {
  const db = server.lading.store.db;
  const time = new Date().toISOString();
  await db
    .insertInto("image_scans")
    .values({
      repo_uid: repoUid,
      digest,
      state: "done",
      reason: "",
      rematch: 0,
      attempts: 1,
      claim_time: null,
      sbom_digest: "",
      sbom_source: "generated",
      architecture: image.architecture,
      os: "linux",
      distro: image.distro,
      size: image.size,
      generation: 0,
      create_time: time,
      update_time: time,
    })
    .execute();
  if (packages.length === 0) return;
  await db
    .insertInto("image_packages")
    .values(
      packages.map((p) => ({
        repo_uid: repoUid,
        image_digest: digest,
        sbom_digest: "",
        name: p.name,
        version: p.version,
        purl: p.purl,
        ecosystem: p.ecosystem,
        license: "Apache-2.0",
        origin: p.origin ?? "",
      })),
    )
    .execute();
}

/** The rematch flag of each of `digests`, in order. */
export async function rematchFlags(
  server: TestServer,
  repoUid: string,
  digests: string[],
): Promise<number[]> {
  const rows = await server.lading.store.db
    .selectFrom("image_scans")
    .select(["digest", "rematch"])
    .where("repo_uid", "=", repoUid)
    .execute();
  return digests.map((d) => Number(rows.find((r) => r.digest === d)?.rematch ?? -1));
}
