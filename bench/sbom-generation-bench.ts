import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import { createBlobStore } from "../src/store/blobs/index.ts";
import { createMetadataStore } from "../src/store/metadata/index.ts";
import { pendingRow } from "../src/vulnreports/scans/scan-queue.ts";
import { packageFiles } from "../test/support/scan-images.ts";
import { createTestStore } from "../test/support/stores.ts";
import { streamedFillerLayer } from "../test/support/tar-layers.ts";

/** One measured number with its target. */
export interface SbomGenerationMeasurement {
  workload: string;
  value: string;
  target: string;
  met: boolean;
}

const run = promisify(execFile);
const MIB = 1024 * 1024;
const FILE_MIB = 4;
const LAYER_MIB = 100;

/**
 * SBOM generation over an image of `mib` MiB (gzip level 1 layers of incompressible files, the
 * four package databases spread over them), its blobs streamed into a filesystem blob store
 * (never held in memory). Only the generation is timed, in a child process: layers streamed
 * from the store and scanned, the SPDX referrer written. Peak RSS is that process's maxRSS.
 */
export async function measureSbomGeneration(
  mib: number,
  log: (line: string) => void,
): Promise<SbomGenerationMeasurement[]> {
  const dir = mkdtempSync(join(tmpdir(), "lading-sbom-bench-"));
  const location = await createTestStore("sqlite");
  const store = createMetadataStore(location.options);
  try {
    await store.migrate();
    const blobs = await createBlobStore({ dataDir: dir });
    const db = store.db;
    const tails = [
      [packageFiles.osRelease, packageFiles.apk],
      [packageFiles.dpkg],
      [packageFiles.python],
      [packageFiles.npm],
    ];
    const layerCount = Math.max(tails.length, Math.ceil(mib / LAYER_MIB));
    const filesPerLayer = Math.max(1, Math.round(mib / FILE_MIB / layerCount));
    log(`sbom generation: writing a ${mib} MiB image (${layerCount} gzip layers)…`);
    const layers = [];
    for (let i = 0; i < layerCount; i++) {
      const layer = streamedFillerLayer(filesPerLayer, FILE_MIB * MIB, tails[i] ?? []);
      const stored = await blobs.put(layer.stream as Readable);
      layers.push({ mediaType: layer.mediaType, digest: stored.digest, size: stored.size });
    }
    const configBytes = Buffer.from(JSON.stringify({ architecture: "amd64", os: "linux" }));
    const config = await blobs.put(Readable.from([configBytes]));
    const manifestBytes = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        config: { mediaType: "application/vnd.oci.image.config.v1+json", ...config },
        layers,
      }),
    );
    const manifest = await blobs.put(Readable.from([manifestBytes]));
    const time = new Date().toISOString();
    const repoUid = "bench";
    await db
      .insertInto("manifests")
      .values({
        repo_uid: repoUid,
        digest: manifest.digest,
        media_type: "application/vnd.oci.image.manifest.v1+json",
        artifact_type: "application/vnd.oci.image.config.v1+json",
        subject_digest: null,
        size: manifest.size,
        create_time: time,
      })
      .execute();
    await db
      .insertInto("image_scans")
      .values(pendingRow(repoUid, manifest.digest, time))
      .execute();
    const imageBytes = layers.reduce((sum, l) => sum + l.size, config.size);

    // The generation runs in a process of its own, as it would in a server, so that its peak
    // RSS is its own and not this one's, which has just written the image.
    const child = await run(process.execPath, [
      new URL("./sbom-generation-child.ts", import.meta.url).pathname,
      location.options.dataDir,
      dir,
      repoUid,
      manifest.digest,
    ]);
    const { seconds, packages, maxRss, rssBefore } = JSON.parse(child.stdout) as {
      seconds: number;
      packages: number;
      maxRss: number;
      rssBefore: number;
    };
    if (packages !== 5) throw new Error(`the bench image scanned to ${packages} packages, not 5`);
    const rate = imageBytes / MIB / seconds;
    const peakMb = maxRss / 1e6;
    return [
      {
        workload: `SBOM generation, ${(imageBytes / MIB).toFixed(0)} MiB image`,
        value: `${rate.toFixed(0)} MiB/s (${seconds.toFixed(2)} s)`,
        target: ">= 200 MiB/s",
        met: rate >= 200,
      },
      {
        workload: "peak RSS during generation",
        value: `${peakMb.toFixed(0)} MB (${(rssBefore / 1e6).toFixed(0)} MB before)`,
        target: "< 200 MB",
        met: peakMb < 200,
      },
    ];
  } finally {
    await store.close();
    await location.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
