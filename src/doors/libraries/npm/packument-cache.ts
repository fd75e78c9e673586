import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import { createStampedCache } from "../stamped-cache.ts";
import type { PackumentArtifact, Packuments } from "./packument.ts";

const gzipped = promisify(gzip);

/** One packument form as sent: plain and gzip-encoded, each with its entity tag. */
export interface PackumentVariants {
  plain: { body: Buffer; etag: string };
  gzip: { body: Buffer; etag: string };
}

/** Both packument forms, ready to send. */
export interface CachedPackuments {
  full: PackumentVariants;
  abbreviated: PackumentVariants;
}

/** Options of {@link createPackumentCache}. */
export interface PackumentCacheOptions {
  /**
   * Bytes of encoded packuments kept, least recently used dropped first. Default 64 MiB: a
   * package of 500 versions encodes to some 300 KiB in both forms, so a few hundred of the
   * busiest packages stay in memory.
   */
  maxBytes?: number;
}

/**
 * Packuments by artifact, each valid for one state of the artifact row: every publish and
 * dist-tag change moves `update_time`, `version_count` or `dist_tags`, which the caller reads
 * (one indexed row) on every request, so a replica that did not see the change itself still
 * never serves an old document.
 */
export function createPackumentCache(options: PackumentCacheOptions = {}) {
  const cache = createStampedCache<CachedPackuments>({
    maxBytes: options.maxBytes ?? 64 * 1024 * 1024,
    sizeOf: (value) =>
      [value.full, value.abbreviated].reduce(
        (sum, v) => sum + v.plain.body.length + v.gzip.body.length,
        0,
      ),
  });
  return {
    /** The packuments of `artifact` in its current state, built by `build` on a miss. */
    get(artifact: PackumentArtifact, build: () => Promise<Packuments>): Promise<CachedPackuments> {
      const stamp = `${artifact.update_time}|${artifact.version_count}|${artifact.dist_tags}`;
      return cache.get(artifact.uid, stamp, () => build().then(encode));
    },
  };
}

export type PackumentCache = ReturnType<typeof createPackumentCache>;

/**
 * Encodes a form once per state: npm asks with `Accept-Encoding: gzip`, and a 500-version
 * packument of ~200 KiB compresses some tenfold, so the gzip bytes are kept beside the plain.
 */
async function variants(body: Buffer): Promise<PackumentVariants> {
  const tag = createHash("sha256").update(body).digest("base64url").slice(0, 27);
  return {
    plain: { body, etag: `"${tag}"` },
    gzip: { body: await gzipped(body), etag: `"${tag}-gz"` },
  };
}

async function encode(p: Packuments): Promise<CachedPackuments> {
  const [full, abbreviated] = await Promise.all([variants(p.full), variants(p.abbreviated)]);
  return { full, abbreviated };
}
