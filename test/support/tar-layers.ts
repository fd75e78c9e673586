import { once } from "node:events";
import { pipeline, Readable } from "node:stream";
import { createGzip, createZstdCompress, gzipSync, zstdCompressSync } from "node:zlib";
import tar from "tar-stream";
import type { LayerInput } from "../../src/vulnreports/layers/layer-walker.ts";

/** One entry of a test layer; a file unless `type` says otherwise. */
export interface TarEntry {
  name: string;
  content?: string | Buffer;
  type?: "file" | "directory" | "symlink" | "link";
  linkname?: string;
  /** The file mode; tar-stream's default (0644) when absent. */
  mode?: number;
}

/** A tar archive of the entries, built in memory with tar-stream's packer. */
export async function tarBytes(entries: readonly TarEntry[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const chunk of pack) chunks.push(chunk as Buffer);
  })();
  for (const entry of entries) {
    const type = entry.type ?? "file";
    if (type === "file") pack.entry({ name: entry.name, mode: entry.mode }, entry.content ?? "");
    else pack.entry({ name: entry.name, type, linkname: entry.linkname });
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

export const OCI_TAR = "application/vnd.oci.image.layer.v1.tar";
export const OCI_GZIP = "application/vnd.oci.image.layer.v1.tar+gzip";
export const OCI_ZSTD = "application/vnd.oci.image.layer.v1.tar+zstd";
export const DOCKER_GZIP = "application/vnd.docker.image.rootfs.diff.tar.gzip";

/** A layer of the entries, compressed as `mediaType` says (gzip unless given). */
export async function layer(
  entries: readonly TarEntry[],
  mediaType: string = OCI_GZIP,
): Promise<LayerInput> {
  const bytes = await tarBytes(entries);
  const blob = mediaType.endsWith("zstd")
    ? zstdCompressSync(bytes)
    : mediaType.endsWith("gzip")
      ? gzipSync(bytes)
      : bytes;
  return { mediaType, stream: Readable.from([blob]) };
}

/** The layers as the async iterable scanners take, base first. */
export async function* layersOf(...layers: LayerInput[]): AsyncGenerator<LayerInput> {
  yield* layers;
}

/**
 * A gzip layer written as it is read: `count` filler files of `fileBytes` each (pseudo-random,
 * so the blob is as large as its content), then `tail`. Nothing is buffered beyond the streams'
 * own high-water marks, so memory measured around a scan of it is the scanner's.
 */
export function streamedFillerLayer(
  count: number,
  fileBytes: number,
  tail: readonly TarEntry[] = [],
  compression: "gzip" | "zstd" = "gzip",
): LayerInput {
  const pack = tar.pack();
  const block = Buffer.alloc(1024 * 1024);
  let state = 0x9e3779b9;
  for (let i = 0; i < block.length; i += 4) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    block.writeUInt32LE(state >>> 0, i);
  }
  const write = async () => {
    for (let i = 0; i < count; i++) {
      await writeEntry(pack, `filler/${i}.bin`, fileBytes, block);
    }
    for (const entry of tail) {
      const content = Buffer.from(entry.content ?? "");
      await writeEntry(pack, entry.name, content.length, content);
    }
    pack.finalize();
  };
  write().catch((error) => pack.destroy(error));
  const compressor = compression === "gzip" ? createGzip({ level: 1 }) : createZstdCompress();
  const blob = pipeline(pack as unknown as NodeJS.ReadableStream, compressor, () => {});
  return { mediaType: compression === "gzip" ? OCI_GZIP : OCI_ZSTD, stream: blob };
}

async function writeEntry(pack: tar.Pack, name: string, size: number, block: Buffer) {
  const finished = new Promise<void>((resolve, reject) => {
    const sink = pack.entry({ name, size }, (error) => (error ? reject(error) : resolve()));
    void (async () => {
      for (let left = size; left > 0; left -= block.length) {
        const chunk = left >= block.length ? block : block.subarray(0, left);
        if (!sink.write(chunk)) await once(sink as unknown as NodeJS.EventEmitter, "drain");
      }
      sink.end(null);
    })();
  });
  await finished;
}
