import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";

/** A content descriptor as written into manifests. */
export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: { architecture: string; os: string };
  annotations?: Record<string, string>;
}

/** sha256 digest of `bytes`. */
export const sha256 = (bytes: Buffer | string) =>
  `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

/** A one-file ustar archive, gzipped. */
export function tarGz(name: string, content: string): Buffer {
  return tarGzFiles([{ name, content }]);
}

/** A ustar archive of regular files (names under 100 bytes), gzipped. */
export function tarGzFiles(files: readonly { name: string; content: string }[]): Buffer {
  const parts: Buffer[] = [];
  for (const { name, content } of files) {
    const body = Buffer.from(content);
    const header = Buffer.alloc(512);
    header.write(name, 0);
    header.write("0000644\0", 100);
    header.write("0000000\0", 108);
    header.write("0000000\0", 116);
    header.write(`${body.length.toString(8).padStart(11, "0")}\0`, 124);
    header.write(
      `${Math.floor(Date.UTC(2026, 0, 1) / 1000)
        .toString(8)
        .padStart(11, "0")}\0`,
      136,
    );
    header.write("        ", 148);
    header.write("0", 156);
    header.write("ustar\0", 257);
    header.write("00", 263);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
    parts.push(header, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  return gzipSync(Buffer.concat([...parts, Buffer.alloc(1024)]));
}

/** An image: its blobs by digest, and its manifest bytes and descriptor. */
export interface BuiltImage {
  blobs: Map<string, Buffer>;
  manifest: Buffer;
  descriptor: Descriptor;
}

/** A single-layer OCI image whose hello.txt says `content`, with any further files. */
export function buildImage(
  content: string,
  architecture = "amd64",
  files: readonly { name: string; content: string }[] = [],
): BuiltImage {
  const layer = tarGzFiles([{ name: "hello.txt", content }, ...files]);
  const diffId = sha256(tarGzRaw(layer));
  const config = Buffer.from(
    JSON.stringify({
      architecture,
      os: "linux",
      rootfs: { type: "layers", diff_ids: [diffId] },
      config: { Cmd: ["/hello"] },
    }),
  );
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      config: {
        mediaType: "application/vnd.oci.image.config.v1+json",
        digest: sha256(config),
        size: config.length,
      },
      layers: [
        {
          mediaType: "application/vnd.oci.image.layer.v1.tar+gzip",
          digest: sha256(layer),
          size: layer.length,
        },
      ],
    }),
  );
  const blobs = new Map([
    [sha256(layer), layer],
    [sha256(config), config],
  ]);
  return {
    blobs,
    manifest,
    descriptor: {
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      digest: sha256(manifest),
      size: manifest.length,
      platform: { architecture, os: "linux" },
    },
  };
}

function tarGzRaw(gz: Buffer): Buffer {
  return gunzipSync(gz);
}

/** An OCI index over `images`. */
export function buildIndex(images: BuiltImage[]): { bytes: Buffer; descriptor: Descriptor } {
  const bytes = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.index.v1+json",
      manifests: images.map((i) => i.descriptor),
    }),
  );
  return {
    bytes,
    descriptor: {
      mediaType: "application/vnd.oci.image.index.v1+json",
      digest: sha256(bytes),
      size: bytes.length,
    },
  };
}

/**
 * Writes an OCI image layout (image-spec `image-layout.md`) into `dir` holding `images` (and
 * `index`, when given, as the entry named `tag`), for `skopeo copy oci:<dir>:<tag>`.
 */
export function writeImageLayout(
  dir: string,
  tag: string,
  images: BuiltImage[],
  index?: { bytes: Buffer; descriptor: Descriptor },
): string {
  mkdirSync(join(dir, "blobs", "sha256"), { recursive: true });
  const put = (bytes: Buffer) =>
    writeFileSync(join(dir, "blobs", "sha256", sha256(bytes).slice(7)), bytes);
  for (const image of images) {
    for (const blob of image.blobs.values()) put(blob);
    put(image.manifest);
  }
  if (index) put(index.bytes);
  const entry = index?.descriptor ?? images[0].descriptor;
  writeFileSync(join(dir, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
  writeFileSync(
    join(dir, "index.json"),
    JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.index.v1+json",
      manifests: [
        {
          ...entry,
          platform: undefined,
          annotations: { "org.opencontainers.image.ref.name": tag },
        },
      ],
    }),
  );
  return dir;
}
