import { type BuiltImage, sha256 } from "./oci-layout.ts";

/** A small OCI distribution client over fetch, for protocol-level tests. */
export interface OciClient {
  /** fetch of `<registry>/<path>` with the client's token as Bearer (if any). */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Monolithic single-POST upload; returns the digest. */
  pushBlob(name: string, bytes: Buffer): Promise<string>;
  /** PUT of manifest bytes under `reference`. */
  putManifest(
    name: string,
    reference: string,
    bytes: Buffer,
    mediaType?: string,
  ): Promise<Response>;
  /** Blobs, then the manifest under `tag`; returns the manifest digest. */
  pushImage(name: string, tag: string, image: BuiltImage): Promise<string>;
}

/** A client of the registry at `registryUrl` presenting `token`. */
export function ociClient(registryUrl: string, token?: string): OciClient {
  const client: OciClient = {
    fetch(path, init = {}) {
      const headers = new Headers(init.headers);
      if (token && !headers.has("authorization")) headers.set("authorization", `Bearer ${token}`);
      return fetch(`${registryUrl}${path}`, { ...init, headers });
    },
    async pushBlob(name, bytes) {
      const digest = sha256(bytes);
      const res = await client.fetch(`/v2/${name}/blobs/uploads/?digest=${digest}`, {
        method: "POST",
        body: new Uint8Array(bytes),
        headers: { "content-type": "application/octet-stream" },
      });
      if (res.status !== 201) throw new Error(`blob push: ${res.status} ${await res.text()}`);
      return digest;
    },
    putManifest(name, reference, bytes, mediaType = "application/vnd.oci.image.manifest.v1+json") {
      return client.fetch(`/v2/${name}/manifests/${reference}`, {
        method: "PUT",
        body: new Uint8Array(bytes),
        headers: { "content-type": mediaType },
      });
    },
    async pushImage(name, tag, image) {
      for (const blob of image.blobs.values()) await client.pushBlob(name, blob);
      const res = await client.putManifest(name, tag, image.manifest);
      if (res.status !== 201) throw new Error(`manifest push: ${res.status} ${await res.text()}`);
      return image.descriptor.digest;
    },
  };
  return client;
}

/** Asks `/token` for `scopes` with `authorization` (none: anonymous); returns status and body. */
export async function requestToken(
  registryUrl: string,
  scopes: string[],
  authorization?: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const query = new URLSearchParams(scopes.map((s): [string, string] => ["scope", s]));
  const res = await fetch(`${registryUrl}/token?${query}`, {
    headers: authorization ? { authorization } : {},
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The claims of a JWT, unverified. */
export function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split(".")[1], "base64url").toString());
}

/** `Basic base64(_token:<token>)`. */
export const basicToken = (token: string) =>
  `Basic ${Buffer.from(`_token:${token}`).toString("base64")}`;
