/** Bytes in one block: few system calls and messages per blob, little memory per stream. */
export const blockBytes = 1 << 20;

/** The one WebAssembly API used here (TypeScript declares it only in its DOM library). */
declare const WebAssembly: {
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
};

const wasmPageBytes = 64 * 1024;
const blocksPerSlab = 16;
/** At most this many aligned slabs (64 MiB); past them, streams get plain blocks. */
const maxSlabs = 4;
/** Idle movable blocks kept for reuse; more go to the garbage collector. */
const maxIdleMovable = 64;
/** Idle blocks of each kind kept once every upload has ended; the rest are given back. */
const keptWhenIdle = 8;
let slabs = 0;
const slabBuffers: ArrayBuffer[] = [];
const movable: ArrayBuffer[] = [];
const aligned: Buffer[] = [];
const alignedSlabs = new WeakSet<ArrayBufferLike>();

/**
 * Lends `count` blocks of {@link blockBytes}, each the whole of its own ArrayBuffer, so it can
 * move to a worker thread and back without a copy. Up to 64 idle blocks are kept for reuse.
 */
export function borrowBlocks(count: number): Buffer[] {
  return Array.from({ length: count }, () =>
    Buffer.from(movable.pop() ?? new ArrayBuffer(blockBytes)),
  );
}

/**
 * Lends `count` blocks of {@link blockBytes} that start on a page boundary, as `O_DIRECT` I/O
 * needs. Node gives no say over where a Buffer's memory starts, but a WebAssembly memory always
 * starts on a page, so these are carved from 16 MiB WebAssembly memories, reused and never
 * freed. Past four such memories (64 blocks lent at once), or where WebAssembly is unavailable,
 * the blocks are plain memory and {@link isAligned} says false.
 */
export function borrowAlignedBlocks(count: number): Buffer[] {
  while (aligned.length < count && slabs < maxSlabs) if (!addSlab()) break;
  if (aligned.length < count) return borrowBlocks(count);
  return aligned.splice(aligned.length - count, count);
}

/** Whether the block came from {@link borrowAlignedBlocks} and starts on a page boundary. */
export function isAligned(block: Buffer): boolean {
  return alignedSlabs.has(block.buffer);
}

/** Gives blocks of either kind back; nothing may read or write them afterwards. */
export function returnBlocks(blocks: readonly Buffer[]): void {
  for (const block of blocks) {
    if (block.byteLength !== blockBytes) continue; // detached: it never came back from a worker
    if (isAligned(block)) aligned.push(block);
    else if (movable.length < maxIdleMovable && block.buffer.byteLength === blockBytes) {
      movable.push(block.buffer as ArrayBuffer);
    }
  }
}

function addSlab(): boolean {
  const bytes = blocksPerSlab * blockBytes;
  let slab: ArrayBuffer;
  try {
    slab = new WebAssembly.Memory({ initial: bytes / wasmPageBytes }).buffer;
  } catch {
    return false;
  }
  slabs++;
  slabBuffers.push(slab);
  alignedSlabs.add(slab);
  for (let i = 0; i < blocksPerSlab; i++)
    aligned.push(Buffer.from(slab, i * blockBytes, blockBytes));
  return true;
}

/**
 * Lets go of idle blocks past the first few, and of every aligned slab (but the first) whose
 * blocks are all idle, for the garbage collector to give back to the system: a burst of
 * uploads then leaves no more than about 24 MiB of blocks behind.
 */
export function trimIdleBlocks(): void {
  movable.length = Math.min(movable.length, keptWhenIdle);
  spareParts.length = 0;
  for (let i = slabBuffers.length - 1; i >= 1; i--) {
    const slab = slabBuffers[i];
    if (aligned.filter((block) => block.buffer === slab).length !== blocksPerSlab) continue;
    for (let j = aligned.length - 1; j >= 0; j--)
      if (aligned[j].buffer === slab) aligned.splice(j, 1);
    slabBuffers.splice(i, 1);
    slabs--;
  }
}

/** Bytes the pool keeps: its spare movable blocks and its aligned slabs, lent or not. */
export function pooledBytes(): number {
  return (movable.length + slabs * blocksPerSlab) * blockBytes;
}

/** Spare part buffers, all of the size last asked for. */
const spareParts: Buffer[] = [];

/**
 * Lends a buffer of `bytes` (an S3 part). It is the memory of a WebAssembly memory of its own
 * where the platform has one: V8 maps such memory straight from the system and unmaps it once
 * the buffer is collected, where a plain buffer this size comes from the C heap, which keeps
 * what it freed resident. Returned ones are reused until {@link trimIdleBlocks}.
 */
export function borrowPartBuffer(bytes: number): Buffer {
  const spare = spareParts.pop();
  if (spare && spare.byteLength === bytes) return spare;
  spareParts.length = 0;
  try {
    const pages = Math.ceil(bytes / wasmPageBytes);
    return Buffer.from(new WebAssembly.Memory({ initial: pages }).buffer, 0, bytes);
  } catch {
    return Buffer.allocUnsafeSlow(bytes);
  }
}

/** Gives a buffer from {@link borrowPartBuffer} back; nothing may use it afterwards. */
export function returnPartBuffer(buffer: Buffer): void {
  spareParts.push(buffer);
}
