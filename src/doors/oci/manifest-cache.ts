import type { Readable } from "node:stream";

/** Manifest bytes kept in memory by default: enough for thousands of typical manifests. */
export const defaultManifestCacheBytes = 32 * 1024 * 1024;

/**
 * A least-recently-used cache of manifest bytes by digest. Content is addressed by its digest,
 * so an entry never goes stale; only the total size is bounded.
 */
export interface ManifestCache {
  /** The bytes of `digest`, read with `load` (and kept) when not cached. */
  read(digest: string, load: () => Promise<Readable>): Promise<Buffer>;
}

/** Creates a cache holding at most `maxBytes` of manifests. */
export function createManifestCache(maxBytes = defaultManifestCacheBytes): ManifestCache {
  const entries = new Map<string, Buffer>();
  let total = 0;
  return {
    async read(digest, load) {
      const hit = entries.get(digest);
      if (hit) {
        entries.delete(digest);
        entries.set(digest, hit);
        return hit;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of await load()) chunks.push(chunk as Buffer);
      const bytes = Buffer.concat(chunks);
      if (bytes.length <= maxBytes) {
        entries.set(digest, bytes);
        total += bytes.length;
        for (const [key, value] of entries) {
          if (total <= maxBytes) break;
          entries.delete(key);
          total -= value.length;
        }
      }
      return bytes;
    },
  };
}
