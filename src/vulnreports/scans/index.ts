export type { PushedManifest } from "./pushed-manifest.ts";
export { enqueuePushed, queueActionOf } from "./scan-queue.ts";
export {
  createScanWorker,
  type MatchImage,
  type ScanWorker,
  type ScanWorkerOptions,
} from "./scan-worker.ts";
export { writeSpdx } from "./spdx-writer.ts";
