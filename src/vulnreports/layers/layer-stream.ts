import { PassThrough, pipeline, type Readable, type Transform } from "node:stream";
import { createGunzip, createZstdDecompress } from "node:zlib";
import { decompressWithin } from "../../store/blobs/index.ts";

const DECODED_CHUNK = 256 * 1024;
/**
 * How far a compressed layer may expand: any layer is read to 1 GiB, and past that only while
 * it stays under 100 times the compressed bytes read (real layers unpack to 2–5 times their
 * size; a gigabyte of zeros in a large layer still passes). A bomb fails its layer, and so
 * the scan.
 */
export const layerExpansion = {
  ratio: 100,
  floorBytes: 1024 ** 3,
  maxBytes: Number.POSITIVE_INFINITY,
};

/** How a layer blob is compressed. */
export type LayerCompression = "gzip" | "zstd" | "none";

/**
 * Layer media types to their compression. Docker's foreign and OCI's (deprecated)
 * non-distributable layers are the same tar encodings under another name, so they are read too.
 */
const MEDIA_TYPES: Readonly<Record<string, LayerCompression>> = {
  "application/vnd.oci.image.layer.v1.tar": "none",
  "application/vnd.oci.image.layer.v1.tar+gzip": "gzip",
  "application/vnd.oci.image.layer.v1.tar+zstd": "zstd",
  "application/vnd.oci.image.layer.nondistributable.v1.tar": "none",
  "application/vnd.oci.image.layer.nondistributable.v1.tar+gzip": "gzip",
  "application/vnd.oci.image.layer.nondistributable.v1.tar+zstd": "zstd",
  "application/vnd.docker.image.rootfs.diff.tar": "none",
  "application/vnd.docker.image.rootfs.diff.tar.gzip": "gzip",
  "application/vnd.docker.image.rootfs.foreign.diff.tar.gzip": "gzip",
};

/** The compression of a layer media type (parameters ignored), or undefined when unknown. */
export function layerCompression(mediaType: string): LayerCompression | undefined {
  const base = mediaType.split(";")[0].trim().toLowerCase();
  return Object.hasOwn(MEDIA_TYPES, base) ? MEDIA_TYPES[base] : undefined;
}

/**
 * The layer's tar stream, decompressed as its media type says. An unknown media type is an
 * error value, not a throw, so one odd layer (an attestation, a Windows layer) cannot abort a
 * scan; the caller decides whether the scan is still meaningful. Errors of the source stream
 * surface as errors of the returned stream.
 */
export function decompressLayer(
  stream: NodeJS.ReadableStream,
  mediaType: string,
): { stream: Readable; error?: undefined } | { stream?: undefined; error: string } {
  const compression = layerCompression(mediaType);
  if (compression === undefined) return { error: `unsupported layer media type "${mediaType}"` };
  // Output chunks of 256 KiB instead of zlib's 16 KiB: the tar parser's cost is per chunk, and
  // with the default it, not decompression, bounded a scan (≈60 against ≈250 MiB/s).
  const decoder: Transform =
    compression === "gzip"
      ? createGunzip({ chunkSize: DECODED_CHUNK })
      : compression === "zstd"
        ? createZstdDecompress({ chunkSize: DECODED_CHUNK })
        : new PassThrough();
  if (compression === "none") {
    // pipeline rather than pipe: a failing source must destroy the decoder, or a reader would
    // wait forever for the end of a tar that never comes.
    pipeline(stream, decoder, () => {});
    return { stream: decoder };
  }
  return { stream: decompressWithin(stream, decoder, layerExpansion) };
}
