import { createHash, randomBytes } from "node:crypto";
import type { OciClient } from "../support/oci-client.ts";

/** Helpers that push through the OCI API the ways clients do, for the collector's tests. */

export const sha256 = (bytes: Buffer) =>
  `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

const OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
const OCI_INDEX = "application/vnd.oci.image.index.v1+json";
const LAYER = "application/vnd.oci.image.layer.v1.tar";

/** A manifest's bytes and digest, with the blobs it names. */
export interface Pushed {
  digest: string;
  bytes: Buffer;
  mediaType: string;
  blobs: Buffer[];
}

/** A push refused because a collection took what it relied on (the client pushes again). */
export class RetryablePush extends Error {}

/** An image manifest naming a config and `layers`. */
export function imageManifest(layers: Buffer[], label: string): Pushed {
  const config = Buffer.from(JSON.stringify({ architecture: "amd64", os: "linux", label }));
  const bytes = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      config: {
        mediaType: "application/vnd.oci.image.config.v1+json",
        digest: sha256(config),
        size: config.length,
      },
      layers: layers.map((l) => ({ mediaType: LAYER, digest: sha256(l), size: l.length })),
    }),
  );
  return { digest: sha256(bytes), bytes, mediaType: OCI_MANIFEST, blobs: [config, ...layers] };
}

/** An index of `children`. */
export function indexManifest(children: Pushed[]): Pushed {
  const bytes = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: OCI_INDEX,
      manifests: children.map((c, i) => ({
        mediaType: c.mediaType,
        digest: c.digest,
        size: c.bytes.length,
        platform: { architecture: i === 0 ? "amd64" : "arm64", os: "linux" },
      })),
    }),
  );
  return { digest: sha256(bytes), bytes, mediaType: OCI_INDEX, blobs: [] };
}

export const randomLayer = (size = 2048) => randomBytes(size);

/** Single-POST upload. */
export async function postBlob(client: OciClient, name: string, blob: Buffer): Promise<void> {
  const res = await client.fetch(`/v2/${name}/blobs/uploads/?digest=${sha256(blob)}`, {
    method: "POST",
    body: new Uint8Array(blob),
    headers: { "content-type": "application/octet-stream" },
  });
  if (res.status !== 201) throw new Error(`blob POST: ${res.status} ${await res.text()}`);
}

/** Chunked upload in `parts` PATCHes, closed by a PUT without body. */
export async function chunkedBlob(client: OciClient, name: string, blob: Buffer, parts = 3) {
  const start = await client.fetch(`/v2/${name}/blobs/uploads/`, { method: "POST" });
  if (start.status !== 202) throw new Error(`upload start: ${start.status}`);
  let location = start.headers.get("location") as string;
  const step = Math.ceil(blob.length / parts);
  for (let at = 0; at < blob.length; at += step) {
    const chunk = blob.subarray(at, Math.min(blob.length, at + step));
    const res = await client.fetch(location, {
      method: "PATCH",
      body: new Uint8Array(chunk),
      headers: {
        "content-type": "application/octet-stream",
        "content-range": `${at}-${at + chunk.length - 1}`,
      },
    });
    if (res.status !== 202) throw new Error(`PATCH: ${res.status} ${await res.text()}`);
    location = res.headers.get("location") as string;
  }
  const sep = location.includes("?") ? "&" : "?";
  const done = await client.fetch(`${location}${sep}digest=${sha256(blob)}`, { method: "PUT" });
  if (done.status !== 201) throw new Error(`upload PUT: ${done.status} ${await done.text()}`);
}

/** Cross-repo mount; falls back to a single POST when the registry answers 202. */
export async function mountBlob(client: OciClient, name: string, from: string, blob: Buffer) {
  const res = await client.fetch(
    `/v2/${name}/blobs/uploads/?mount=${sha256(blob)}&from=${encodeURIComponent(from)}`,
    { method: "POST" },
  );
  await res.arrayBuffer();
  if (res.status === 201) return true;
  if (res.status !== 202) throw new Error(`mount: ${res.status}`);
  await postBlob(client, name, blob);
  return false;
}

/** HEAD a blob, uploading it only when the registry lacks it (what docker push does). */
export async function ensureBlob(client: OciClient, name: string, blob: Buffer) {
  const head = await client.fetch(`/v2/${name}/blobs/${sha256(blob)}`, { method: "HEAD" });
  if (head.status === 200) return;
  await postBlob(client, name, blob);
}

/** PUT a manifest; a MANIFEST_BLOB_UNKNOWN becomes RetryablePush. */
export async function putManifest(client: OciClient, name: string, ref: string, m: Pushed) {
  const res = await client.putManifest(name, ref, m.bytes, m.mediaType);
  const text = await res.text();
  if (res.status === 400 && text.includes("MANIFEST_BLOB_UNKNOWN")) throw new RetryablePush(text);
  if (res.status !== 201) throw new Error(`manifest PUT ${name}:${ref}: ${res.status} ${text}`);
}

/** Pulls `name:ref` fully: the manifest, then every blob and child, checking each digest. */
export async function pullFully(client: OciClient, name: string, ref: string): Promise<void> {
  const res = await client.fetch(`/v2/${name}/manifests/${ref}`, {
    headers: { accept: `${OCI_MANIFEST}, ${OCI_INDEX}` },
  });
  if (res.status !== 200) throw new Error(`pull ${name}:${ref}: ${res.status} ${await res.text()}`);
  const bytes = Buffer.from(await res.arrayBuffer());
  const digest = res.headers.get("docker-content-digest");
  if (sha256(bytes) !== digest)
    throw new Error(`manifest ${name}:${ref} does not match its digest`);
  const doc = JSON.parse(bytes.toString("utf8")) as {
    config?: { digest: string };
    layers?: { digest: string }[];
    manifests?: { digest: string }[];
  };
  for (const child of doc.manifests ?? []) await pullFully(client, name, child.digest);
  for (const blob of [...(doc.config ? [doc.config] : []), ...(doc.layers ?? [])]) {
    const got = await client.fetch(`/v2/${name}/blobs/${blob.digest}`);
    if (got.status !== 200) throw new Error(`blob ${blob.digest} of ${name}:${ref}: ${got.status}`);
    const body = Buffer.from(await got.arrayBuffer());
    if (sha256(body) !== blob.digest) throw new Error(`blob ${blob.digest} has other bytes`);
  }
}
