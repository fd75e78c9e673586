import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type BlobStore, createBlobStore } from "../src/store/blobs/index.ts";

const MiB = 1 << 20;

/** Blob store throughput on one blob, with `openssl dgst -sha256` on the same bytes for scale. */
export interface BlobThroughput {
  sizeMiB: number;
  /** `put` with the expected digest, MiB/s. */
  uploadMonolithic: number;
  /** createUpload, appends of `chunkMiB`, commit, MiB/s. */
  uploadChunked: number;
  chunkMiB: number;
  /** `get` drained, MiB/s. */
  download: number;
  /** `openssl dgst -sha256` on the same file, MiB/s; undefined when openssl is missing. */
  openssl?: number;
  /** Highest RSS growth over the start, MiB. */
  peakRssGrowthMiB: number;
}

/** Options of {@link measureBlobThroughput}. */
export interface BlobThroughputOptions {
  /** Size of each append in the chunked run; default 16 MiB (a typical client chunk). */
  chunkMiB?: number;
}

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

/**
 * Uploads a `sizeMiB` MiB blob of random bytes to `store` monolithically and in chunks,
 * downloads it, and times `openssl dgst -sha256` on the same bytes; deletes the blob afterwards.
 * An untimed upload comes first: in a fresh VM, the first touch of page-cache memory costs more
 * than the store itself and would otherwise land on whichever run goes first.
 */
export async function measureBlobThroughput(
  store: BlobStore,
  sizeMiB: number,
  options: BlobThroughputOptions = {},
): Promise<BlobThroughput> {
  const chunkMiB = options.chunkMiB ?? 16;
  const dir = await mkdtemp(join(tmpdir(), "lading-bench-blob-"));
  const file = join(dir, "blob");
  const baseline = process.memoryUsage().rss;
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss - baseline);
  }, 10);
  try {
    const hash = createHash("sha256");
    const handle = await open(file, "w");
    for (let i = 0; i < sizeMiB; i++) {
      const block = randomBytes(MiB);
      hash.update(block);
      await handle.write(block);
    }
    await handle.sync();
    await handle.close();
    const digest = `sha256:${hash.digest("hex")}`;
    const size = sizeMiB * MiB;
    const read = (start = 0, end = size - 1) =>
      createReadStream(file, { start, end, highWaterMark: MiB });

    const openssl = await timeOpenssl(file);
    await store.put(read(), { expectedDigest: digest });
    await store.delete(digest);

    let start = process.hrtime.bigint();
    await store.put(read(), { expectedDigest: digest });
    const uploadMonolithic = sizeMiB / seconds(start);

    start = process.hrtime.bigint();
    const drained = createHash("sha256");
    for await (const chunk of await store.get(digest)) drained.update(chunk as Buffer);
    const download = sizeMiB / seconds(start);
    if (`sha256:${drained.digest("hex")}` !== digest) throw new Error("download differs");
    await store.delete(digest);

    start = process.hrtime.bigint();
    let state = await store.createUpload();
    for (let offset = 0; offset < size; offset += chunkMiB * MiB) {
      const end = Math.min(size, offset + chunkMiB * MiB) - 1;
      state = await store.appendUpload(state, read(offset, end));
    }
    await store.commitUpload(state, digest);
    const uploadChunked = sizeMiB / seconds(start);
    await store.delete(digest);

    return {
      sizeMiB,
      uploadMonolithic,
      uploadChunked,
      chunkMiB,
      download,
      openssl,
      peakRssGrowthMiB: peak / MiB,
    };
  } finally {
    clearInterval(sampler);
    await rm(dir, { recursive: true, force: true });
  }
}

async function timeOpenssl(file: string): Promise<number | undefined> {
  const { size } = await (await import("node:fs/promises")).stat(file);
  const start = process.hrtime.bigint();
  try {
    await promisify(execFile)("openssl", ["dgst", "-sha256", file]);
  } catch {
    return undefined;
  }
  return size / MiB / seconds(start);
}

if (import.meta.main) {
  const sizeMiB = Number(process.argv[2] ?? 512);
  const blobStoreUrl = process.argv[3] ?? process.env.LADING_BLOB_STORE;
  const dataDir = await mkdtemp(join(tmpdir(), "lading-bench-store-"));
  try {
    const store = await createBlobStore({ dataDir, blobStoreUrl });
    const r = await measureBlobThroughput(store, sizeMiB);
    const ratio = (v: number) =>
      r.openssl ? ` (${((100 * v) / r.openssl).toFixed(0)}% of openssl)` : "";
    console.log(`blob store ${blobStoreUrl ?? "filesystem"}, ${sizeMiB} MiB`);
    console.log(
      `upload monolithic  ${r.uploadMonolithic.toFixed(0)} MiB/s${ratio(r.uploadMonolithic)}`,
    );
    console.log(
      `upload chunked     ${r.uploadChunked.toFixed(0)} MiB/s${ratio(r.uploadChunked)} (${r.chunkMiB} MiB chunks)`,
    );
    console.log(`download           ${r.download.toFixed(0)} MiB/s`);
    console.log(`openssl sha256     ${r.openssl?.toFixed(0) ?? "n/a"} MiB/s`);
    console.log(`peak RSS growth    ${r.peakRssGrowthMiB.toFixed(0)} MiB`);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
