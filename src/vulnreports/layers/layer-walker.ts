import type { Readable } from "node:stream";
import tar from "tar-stream";
import { relieveBuffers } from "../../store/blobs/index.ts";
import { layerEntryKind, normaliseLayerPath } from "./layer-path.ts";
import { decompressLayer } from "./layer-stream.ts";
import { LayerTree } from "./layer-tree.ts";

/** One layer blob, in manifest order (the base layer first). */
export interface LayerInput {
  mediaType: string;
  stream: NodeJS.ReadableStream;
}

/** Bounds on what a scan holds in memory. */
export interface ScanLimits {
  /** A wanted file larger than this is recorded as skipped, not read. Default 16 MiB. */
  maxFileBytes?: number;
  /** Wanted files held at once; later new paths are counted, not read. Default 100,000. */
  maxFiles?: number;
  /** Bytes of wanted files held at once. Default 256 MiB. */
  maxTotalBytes?: number;
  /** Executables whose sniffed bytes are kept; later ones are counted, not kept. Default 1,000. */
  maxSniffed?: number;
}

/**
 * Reads an executable as it streams past and keeps at most a bounded part of it (Go build info,
 * say): binaries have any path, so they are chosen by mode and contents, never held whole.
 */
export interface ExecutableSniffer {
  push(chunk: Buffer): void;
  /** False once more bytes cannot change the result: the rest is only drained. */
  readonly wantsMore: boolean;
  result(): Buffer | undefined;
}

/** A wanted file that exists in the image but whose bytes were not read. */
export interface SkippedFile {
  path: string;
  reason: string;
}

/** The wanted files as the image's merged filesystem has them. */
export interface LayerScan {
  /** Path (normalised, no leading `/`) to contents. */
  files: Map<string, Buffer>;
  skipped: SkippedFile[];
  /** Layers that could not be read, or read only in part: the scan is then incomplete. */
  errors: string[];
}

const MIB = 1024 * 1024;

/**
 * Streams the layers bottom to top, applies OCI whiteouts, and returns the final contents of
 * the regular files `wanted` accepts. No layer is held in memory: wanted files are read up to
 * the limits, every other entry is drained as it passes.
 *
 * Symlinks and hard links are not followed, even when their path is wanted: a link's target
 * may lie in another layer or outside the image, and package databases are regular files. A
 * link still replaces whatever lower file had its path. `wanted` sees normalised paths.
 *
 * With a `sniffer`, every other regular file with an executable mode bit is streamed through
 * a fresh one as it passes; what it keeps (a bounded window, never the file) is held at that
 * path like a wanted file, up to `maxSniffed` of them.
 */
export async function scanLayers(
  layers: AsyncIterable<LayerInput>,
  wanted: (path: string) => boolean,
  options: ScanLimits = {},
  sniffer?: () => ExecutableSniffer,
): Promise<LayerScan> {
  const limits: Limits = {
    maxFileBytes: options.maxFileBytes ?? 16 * MIB,
    maxFiles: options.maxFiles ?? 100_000,
    maxTotalBytes: options.maxTotalBytes ?? 256 * MIB,
    maxSniffed: options.maxSniffed ?? 1_000,
    sniffer,
  };
  const tree = new LayerTree();
  const errors: string[] = [];
  const overflow = { count: 0, first: "", sniffed: 0, sniffOverflow: 0, firstSniffOverflow: "" };
  let index = 0;
  for await (const layer of layers) {
    index++;
    const opened = decompressLayer(layer.stream, layer.mediaType);
    if (opened.error !== undefined) {
      errors.push(`layer ${index}: ${opened.error}`);
      discard(layer.stream);
      continue;
    }
    tree.beginLayer();
    try {
      await readLayer(opened.stream, tree, wanted, limits, overflow);
    } catch (error) {
      // What was read is kept: the entries before the failure are real, and the error tells the
      // caller the result is incomplete either way.
      errors.push(`layer ${index}: ${error instanceof Error ? error.message : String(error)}`);
    }
    tree.endLayer();
  }
  const files = new Map<string, Buffer>();
  const skipped: SkippedFile[] = [];
  for (const [path, file] of tree.files()) {
    if (file.bytes) files.set(path, file.bytes);
    else skipped.push({ path, reason: file.skipped });
  }
  if (overflow.count > 0) {
    skipped.push({
      path: overflow.first,
      reason: `more than ${limits.maxFiles} wanted files: ${overflow.count} not read, this the first`,
    });
  }
  if (overflow.sniffOverflow > 0) {
    skipped.push({
      path: overflow.firstSniffOverflow,
      reason: `more than ${limits.maxSniffed} binaries with build info: ${overflow.sniffOverflow} not kept, this the first`,
    });
  }
  return { files, skipped, errors };
}

async function readLayer(
  source: Readable,
  tree: LayerTree,
  wanted: (path: string) => boolean,
  limits: Limits,
  overflow: Overflow,
): Promise<void> {
  const extract = tar.extract();
  source.on("error", (error) => extract.destroy(error));
  // Every decompressed chunk dies at once; without a collection now and then V8 leaves some
  // 70 MiB of them resident while a large layer streams past (as a blob download would).
  source.on("data", (chunk: Buffer) => relieveBuffers(chunk.length));
  source.pipe(extract);
  for await (const entry of extract) {
    const { header } = entry;
    const path = normaliseLayerPath(header.name);
    const kind = path === undefined ? undefined : layerEntryKind(path);
    if (kind?.kind === "whiteout") tree.deleteTree(kind.path);
    else if (kind?.kind === "opaque") tree.opaque(kind.dir);
    else if (kind?.kind === "path") {
      const regular = header.type === "file" || header.type === "contiguous-file";
      if (header.type === "directory") tree.deleteFile(kind.path);
      else tree.deleteTree(kind.path);
      if (regular && wanted(kind.path)) {
        const size = header.size ?? 0;
        const skip = skipReason(kind.path, size, tree, limits);
        if (skip === "overflow") {
          if (overflow.count++ === 0) overflow.first = kind.path;
        } else if (skip !== undefined) {
          tree.put(kind.path, { skipped: skip });
        } else {
          tree.put(kind.path, { bytes: await readEntry(entry, size) });
          continue;
        }
      } else if (regular && limits.sniffer && ((header.mode ?? 0) & 0o111) !== 0) {
        const kept = await sniffEntry(entry, limits.sniffer());
        if (kept === undefined) continue;
        // Counted per kept window, so a layer of a million binaries holds at most maxSniffed.
        if (!tree.holds(kind.path) && overflow.sniffed >= limits.maxSniffed) {
          if (overflow.sniffOverflow++ === 0) overflow.firstSniffOverflow = kind.path;
        } else {
          if (!tree.holds(kind.path)) overflow.sniffed++;
          tree.put(kind.path, { bytes: kept });
        }
        continue;
      }
    }
    entry.resume();
  }
}

type Limits = Required<ScanLimits> & { sniffer?: () => ExecutableSniffer };

interface Overflow {
  count: number;
  first: string;
  sniffed: number;
  sniffOverflow: number;
  firstSniffOverflow: string;
}

function skipReason(
  path: string,
  size: number,
  tree: LayerTree,
  limits: Limits,
): string | "overflow" | undefined {
  if (!tree.holds(path) && tree.size >= limits.maxFiles) return "overflow";
  if (size > limits.maxFileBytes) {
    return `${size} bytes, more than the ${limits.maxFileBytes}-byte limit per file`;
  }
  if (tree.bytesHeld + size > limits.maxTotalBytes) {
    return `${size} bytes would take the files read past the ${limits.maxTotalBytes}-byte limit`;
  }
  return undefined;
}

/** The entry's bytes; the size comes from its header, which the extractor holds it to. */
async function readEntry(entry: AsyncIterable<unknown>, size: number): Promise<Buffer> {
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for await (const raw of entry) {
    const chunk = raw as Buffer;
    // Copy rather than keep the chunk: it may be a view into a much larger decompressed block.
    at += chunk.copy(out, at);
  }
  return at === size ? out : out.subarray(0, at);
}

/** Streams an executable through a sniffer, draining what it no longer wants. */
async function sniffEntry(
  entry: AsyncIterable<unknown>,
  sniffer: ExecutableSniffer,
): Promise<Buffer | undefined> {
  for await (const raw of entry) {
    if (sniffer.wantsMore) sniffer.push(raw as Buffer);
  }
  return sniffer.result();
}

/** Lets go of a layer stream that will not be read. */
function discard(stream: NodeJS.ReadableStream): void {
  const destroyable = stream as { destroy?: () => void };
  if (typeof destroyable.destroy === "function") destroyable.destroy();
  else stream.resume();
}
