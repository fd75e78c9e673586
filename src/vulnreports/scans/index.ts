export type { PushedManifest } from "./pushed-manifest.ts";
export { enqueuePushed, queueActionOf } from "./scan-queue.ts";
export { defaultScanBounds, type ScanBounds } from "./scan-runner.ts";
export {
  createScanWorker,
  type MatchImage,
  type ScanWorker,
  type ScanWorkerOptions,
} from "./scan-worker.ts";
export { writeSpdx } from "./spdx-writer.ts";
