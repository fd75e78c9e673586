import { performance } from "node:perf_hooks";
import { createBlobStore } from "../src/store/blobs/index.ts";
import { createMetadataStore } from "../src/store/metadata/index.ts";
import { scanImage } from "../src/vulnreports/scans/scan-image.ts";

/**
 * One SBOM generation, for sbom-generation-bench.ts: `<metadata data dir> <blob data dir>
 * <repo uid> <image digest>`; prints JSON with the seconds it took, the packages found, and
 * the process's RSS before and at its peak (bytes).
 */
const [dataDir, blobDir, repoUid, digest] = process.argv.slice(2);
const store = createMetadataStore({ dataDir });
const blobs = await createBlobStore({ dataDir: blobDir });
const rssBefore = process.memoryUsage().rss;
const env = {
  db: store.db,
  blobs,
  registryUrl: "http://registry.bench",
  toolVersion: "bench",
  signal: new AbortController().signal,
};
const start = performance.now();
const outcome = await scanImage(env, repoUid, digest);
const seconds = (performance.now() - start) / 1000;
await store.close();
if (outcome.kind !== "done") throw new Error(`the scan ended ${JSON.stringify(outcome)}`);
process.stdout.write(
  JSON.stringify({
    seconds,
    packages: outcome.packages.length,
    rssBefore,
    maxRss: process.resourceUsage().maxRSS * 1024,
  }),
);
