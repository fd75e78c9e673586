import type { Kysely } from "kysely";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import { sbomKindOf } from "../sbom/index.ts";
import type { PushedManifest } from "./pushed-manifest.ts";

const INDEX_TYPES = new Set([
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
]);

/**
 * cosign's default (non-referrers) scheme: the attestations of image `sha256:<hex>` sit under
 * tag `sha256-<hex>.att`, SBOMs attached with the older `cosign attach sbom` under `.sbom`.
 */
const COSIGN_TAG = /^(sha256)-([0-9a-f]{64})\.(att|sbom)$/;

/** The image digest a cosign attestation or SBOM tag names, or undefined. */
export function cosignSubjectOf(tag: string): string | undefined {
  const m = COSIGN_TAG.exec(tag);
  return m ? `${m[1]}:${m[2]}` : undefined;
}

/** The tags cosign would use for the attestations and SBOMs of image `digest`. */
export function cosignTagsOf(digest: string): string[] {
  const [algorithm, hex] = digest.split(":");
  return [`${algorithm}-${hex}.att`, `${algorithm}-${hex}.sbom`];
}

/** What a pushed manifest asks of the scan queue. */
export type QueueAction =
  | { kind: "scan"; digests: string[] }
  | { kind: "rescan"; digest: string }
  | { kind: "none" };

/**
 * Decides from the manifest alone: an index queues its entries, an SBOM referrer sends its
 * subject back to the queue (its SBOM may arrive after the image was scanned), an image without
 * a subject is queued, and every other artifact (signatures, attestations that are not SBOMs,
 * SBOM manifests themselves) is left alone. A manifest tagged as cosign tags attestations sends
 * the image the tag names back to the queue. Entries of an index that are not images (buildx
 * attestation manifests) are recognised when claimed, from their layers.
 */
export function queueActionOf(pushed: PushedManifest): QueueAction {
  const cosign = pushed.tags.map(cosignSubjectOf).find((d) => d !== undefined);
  if (cosign !== undefined) return { kind: "rescan", digest: cosign };
  if (INDEX_TYPES.has(pushed.mediaType)) {
    return pushed.childDigests.length > 0
      ? { kind: "scan", digests: [...new Set(pushed.childDigests)] }
      : { kind: "none" };
  }
  if (pushed.subjectDigest !== null) {
    const types = [pushed.artifactType, pushed.configMediaType, ...pushed.layerMediaTypes];
    return types.some((t) => sbomKindOf(t) !== undefined)
      ? { kind: "rescan", digest: pushed.subjectDigest }
      : { kind: "none" };
  }
  return { kind: "scan", digests: [pushed.digest] };
}

/** A new queue row: pending, nothing known yet. */
export function pendingRow(repoUid: string, digest: string, time: string) {
  return {
    repo_uid: repoUid,
    digest,
    state: "pending" as const,
    reason: "",
    rematch: 0,
    attempts: 0,
    claim_time: null,
    sbom_digest: "",
    sbom_source: "",
    architecture: "",
    os: "",
    distro: "",
    size: 0,
    generation: 0,
    create_time: time,
    update_time: time,
  };
}

/**
 * Records what `pushed` asks for; returns true when a row became pending. Queuing an image
 * already known does nothing (the same bytes scan the same way); a pushed SBOM puts its
 * subject back to pending even mid-scan: the claim is cleared, so that scan's result is
 * discarded and the image is scanned again with the new SBOM.
 */
export async function enqueuePushed(
  db: Kysely<MetadataSchema>,
  pushed: PushedManifest,
): Promise<boolean> {
  const action = queueActionOf(pushed);
  const time = new Date().toISOString();
  if (action.kind === "none") return false;
  if (action.kind === "scan") {
    // In slices: a 4 MiB index may list thousands of entries, past the bound-parameter limits.
    for (let i = 0; i < action.digests.length; i += 500) {
      await db
        .insertInto("image_scans")
        .values(action.digests.slice(i, i + 500).map((d) => pendingRow(pushed.repoUid, d, time)))
        .onConflict((oc) => oc.columns(["repo_uid", "digest"]).doNothing())
        .execute();
    }
    return true;
  }
  await requeue(db, pushed.repoUid, action.digest, time);
  return true;
}

/** Puts image `digest` back in the queue (or in it for the first time), clearing any claim. */
export async function requeue(
  db: Kysely<MetadataSchema>,
  repoUid: string,
  digest: string,
  time: string,
): Promise<void> {
  await db
    .insertInto("image_scans")
    .values(pendingRow(repoUid, digest, time))
    .onConflict((oc) =>
      oc.columns(["repo_uid", "digest"]).doUpdateSet({
        state: "pending",
        claim_time: null,
        attempts: 0,
        update_time: time,
      }),
    )
    .execute();
}
