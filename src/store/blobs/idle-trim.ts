import { trimIdleBlocks } from "./blocks.ts";
import { collectReleasedBuffers } from "./buffer-relief.ts";
import type { MemoryBudget } from "./memory-budget.ts";

/** How long every write must have ended before idle blocks are given back. */
const idleTrimMs = 2000;
let trimTimer: NodeJS.Timeout | undefined;

/**
 * Gives idle blocks back once `budget` has lent nothing for {@link idleTrimMs}, and collects
 * once: S3 part buffers and the blocks let go are old by then, and an idle server may not
 * collect its old generation for minutes.
 */
export function trimWhenIdle(budget: MemoryBudget): void {
  clearTimeout(trimTimer);
  trimTimer = setTimeout(() => {
    if (budget.used !== 0) return;
    trimIdleBlocks();
    collectReleasedBuffers();
  }, idleTrimMs);
  trimTimer.unref();
}
