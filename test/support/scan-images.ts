import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { type BuiltImage, type Descriptor, sha256 } from "./oci-layout.ts";
import { type TarEntry, tarBytes } from "./tar-layers.ts";

const run = promisify(execFile);

/** The four package databases the generated SBOM is built from, and the os-release. */
export const packageFiles = {
  osRelease: { name: "etc/os-release", content: 'ID=alpine\nVERSION_ID="3.20.3"\n' },
  apk: {
    name: "lib/apk/db/installed",
    content:
      "C:Q1abc=\nP:musl\nV:1.2.5-r0\nA:x86_64\nL:MIT\no:musl\n\n" +
      "P:busybox\nV:1.36.1-r29\nA:x86_64\nL:GPL-2.0-only\no:busybox\n",
  },
  dpkg: {
    name: "var/lib/dpkg/status",
    content:
      "Package: tzdata\nStatus: install ok installed\nArchitecture: all\nVersion: 2024a-0+deb12u1\n",
  },
  python: {
    name: "usr/lib/python3.12/site-packages/Flask-3.0.3.dist-info/METADATA",
    content: "Metadata-Version: 2.1\nName: Flask\nVersion: 3.0.3\nLicense: BSD-3-Clause\n",
  },
  npm: {
    name: "app/node_modules/express/package.json",
    content: '{"name":"express","version":"4.19.2","license":"MIT"}',
  },
} satisfies Record<string, TarEntry>;

/** What the scanner must find in an image of {@link packageFiles}, sorted by purl. */
export const expectedPackages = [
  {
    name: "busybox",
    version: "1.36.1-r29",
    purl: "pkg:apk/alpine/busybox@1.36.1-r29?arch=x86_64&distro=alpine-3.20.3",
    ecosystem: "apk",
    license: "GPL-2.0-only",
    origin: "busybox",
  },
  {
    name: "musl",
    version: "1.2.5-r0",
    purl: "pkg:apk/alpine/musl@1.2.5-r0?arch=x86_64&distro=alpine-3.20.3",
    ecosystem: "apk",
    license: "MIT",
    origin: "musl",
  },
  {
    name: "tzdata",
    version: "2024a-0+deb12u1",
    purl: "pkg:deb/debian/tzdata@2024a-0+deb12u1?arch=all",
    ecosystem: "deb",
    license: "",
    origin: "",
  },
  {
    name: "express",
    version: "4.19.2",
    purl: "pkg:npm/express@4.19.2",
    ecosystem: "npm",
    license: "MIT",
    origin: "",
  },
  {
    name: "flask",
    version: "3.0.3",
    purl: "pkg:pypi/flask@3.0.3",
    ecosystem: "pypi",
    license: "BSD-3-Clause",
    origin: "",
  },
];

/** Runs umoci; rejects with its stderr. */
async function umoci(...args: string[]): Promise<void> {
  try {
    await run("umoci", args, { encoding: "utf8" });
  } catch (error) {
    throw new Error(`umoci ${args[0]} failed: ${(error as { stderr?: string }).stderr ?? error}`);
  }
}

/**
 * An OCI layout built with umoci (rootless): one layer per entry of `layers`, each written into
 * the unpacked bundle and repacked. Returns the layout directory and the image's digest.
 */
export async function umociImage(
  tag: string,
  layers: readonly (readonly TarEntry[])[],
): Promise<{ layout: string; digest: string }> {
  const dir = mkdtempSync(join(tmpdir(), "lading-umoci-"));
  const layout = join(dir, "layout");
  await umoci("init", "--layout", layout);
  await umoci("new", "--image", `${layout}:${tag}`);
  for (const [i, files] of layers.entries()) {
    const bundle = join(dir, `bundle-${i}`);
    await umoci("unpack", "--rootless", "--image", `${layout}:${tag}`, bundle);
    for (const file of files) {
      const path = join(bundle, "rootfs", file.name);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.content ?? "", file.mode === undefined ? {} : { mode: file.mode });
    }
    await umoci("repack", "--image", `${layout}:${tag}`, bundle);
  }
  const index = JSON.parse(readFileSync(join(layout, "index.json"), "utf8"));
  const entry = index.manifests.find(
    (m: { annotations?: Record<string, string> }) =>
      m.annotations?.["org.opencontainers.image.ref.name"] === tag,
  );
  return { layout, digest: entry.digest };
}

/** A blob and its descriptor. */
function blob(mediaType: string, bytes: Buffer): { descriptor: Descriptor; bytes: Buffer } {
  return { descriptor: { mediaType, digest: sha256(bytes), size: bytes.length }, bytes };
}

/** An OCI image of gzip layers (each a list of files, or raw bytes sent as a gzip layer). */
export async function imageOf(
  layers: readonly (readonly TarEntry[] | Buffer)[],
  architecture = "amd64",
): Promise<BuiltImage> {
  const blobs = new Map<string, Buffer>();
  const layerDescriptors: Descriptor[] = [];
  for (const files of layers) {
    const bytes = Buffer.isBuffer(files) ? files : gzipSync(await tarBytes(files));
    const layer = blob("application/vnd.oci.image.layer.v1.tar+gzip", bytes);
    blobs.set(layer.descriptor.digest, bytes);
    layerDescriptors.push(layer.descriptor);
  }
  const config = blob(
    "application/vnd.oci.image.config.v1+json",
    Buffer.from(JSON.stringify({ architecture, os: "linux", rootfs: { type: "layers" } })),
  );
  blobs.set(config.descriptor.digest, config.bytes);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      config: config.descriptor,
      layers: layerDescriptors,
    }),
  );
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

/**
 * A referrer artifact of `subject` as oras and cosign push them: an empty config, one layer of
 * `bytes` with `layerMediaType`, and `artifactType` when given.
 */
export function referrerOf(
  subject: Descriptor,
  layerMediaType: string,
  bytes: Buffer,
  artifactType?: string,
): BuiltImage {
  const config = blob("application/vnd.oci.empty.v1+json", Buffer.from("{}"));
  const layer = blob(layerMediaType, bytes);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      ...(artifactType ? { artifactType } : {}),
      config: config.descriptor,
      layers: [layer.descriptor],
      subject: { mediaType: subject.mediaType, digest: subject.digest, size: subject.size },
    }),
  );
  return {
    blobs: new Map([
      [config.descriptor.digest, config.bytes],
      [layer.descriptor.digest, layer.bytes],
    ]),
    manifest,
    descriptor: {
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      digest: sha256(manifest),
      size: manifest.length,
    },
  };
}

/** Polls `read` every 50 ms until it returns a value, for at most `ms` (default 15 s). */
export async function waitFor<T>(
  what: string,
  read: () => Promise<T | undefined>,
  ms = 15_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
