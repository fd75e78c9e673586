import { execFile, execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import { Readable } from "node:stream";
import { promisify } from "node:util";

/** Where a registry is and how to authenticate to it. */
export interface RegistryTarget {
  name: string;
  /** Base URL, e.g. http://127.0.0.1:5000. */
  url: string;
  /** Repository path, e.g. acme/bench. */
  repo: string;
  /** Bearer token, if the registry needs one. */
  token?: string;
}

const MiB = 1024 * 1024;
const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** A deterministic stream of `size` pseudo-random bytes: a 1 MiB random block repeated. */
function content(size: number, block: Buffer): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) return this.push(null);
      const n = Math.min(block.length, size - sent);
      sent += n;
      this.push(n === block.length ? block : block.subarray(0, n));
    },
  });
}

/** A blob of `sizeMiB` MiB to push: its digest and a way to stream it again. */
export async function makeBlob(
  sizeMiB: number,
): Promise<{ digest: string; size: number; stream: () => Readable }> {
  const block = randomBytes(MiB);
  const size = sizeMiB * MiB;
  const hash = createHash("sha256");
  for await (const chunk of content(size, block)) hash.update(chunk as Buffer);
  return { digest: `sha256:${hash.digest("hex")}`, size, stream: () => content(size, block) };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: number;
}

/** One HTTP request; the answer body is counted and dropped, never kept. */
export function send(
  target: RegistryTarget,
  method: string,
  path: string,
  body?: Readable | Buffer,
  headers: Record<string, string | number> = {},
): Promise<Answer> {
  const url = new URL(path, target.url);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method,
      agent,
      headers: { ...(target.token ? { authorization: `Bearer ${target.token}` } : {}), ...headers },
    });
    req.on("error", reject);
    req.on("response", (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes }));
      res.on("error", reject);
    });
    if (body instanceof Readable) body.pipe(req);
    else req.end(body);
  });
}

function expect(answer: Answer, status: number, what: string): Answer {
  if (answer.status !== status)
    throw new Error(`${what}: HTTP ${answer.status}, expected ${status}`);
  return answer;
}

async function startUpload(target: RegistryTarget): Promise<string> {
  const started = expect(
    await send(target, "POST", `/v2/${target.repo}/blobs/uploads/`, Buffer.alloc(0), {
      "content-length": 0,
    }),
    202,
    "start upload",
  );
  return String(started.headers.location);
}

const withDigest = (location: string, digest: string) =>
  `${location}${location.includes("?") ? "&" : "?"}digest=${digest}`;

/** Seconds to push `blob` in one PUT (POST, then PUT with the whole body). */
export async function uploadMonolithic(
  target: RegistryTarget,
  blob: Awaited<ReturnType<typeof makeBlob>>,
): Promise<number> {
  const start = performance.now();
  const location = await startUpload(target);
  expect(
    await send(target, "PUT", withDigest(location, blob.digest), blob.stream(), {
      "content-type": "application/octet-stream",
      "content-length": blob.size,
    }),
    201,
    "monolithic upload",
  );
  return (performance.now() - start) / 1000;
}

/** Seconds to push `blob` in PATCH chunks of `chunkMiB`, then a closing PUT. */
export async function uploadChunked(
  target: RegistryTarget,
  blob: Awaited<ReturnType<typeof makeBlob>>,
  chunkMiB = 32,
): Promise<number> {
  const start = performance.now();
  let location = await startUpload(target);
  const chunk = chunkMiB * MiB;
  const stream = blob.stream();
  let offset = 0;
  let pending: Buffer[] = [];
  let pendingSize = 0;
  // Each chunk is streamed from the pieces it is made of, as a client streaming a file would;
  // joining them into one buffer first would time the client's copying, not the registry.
  const flush = async () => {
    const end = offset + pendingSize - 1;
    const answer = expect(
      await send(target, "PATCH", location, Readable.from(pending), {
        "content-type": "application/octet-stream",
        "content-length": pendingSize,
        "content-range": `${offset}-${end}`,
      }),
      202,
      "chunk",
    );
    location = String(answer.headers.location);
    offset += pendingSize;
    pending = [];
    pendingSize = 0;
  };
  for await (const piece of stream) {
    pending.push(piece as Buffer);
    pendingSize += (piece as Buffer).length;
    if (pendingSize >= chunk) await flush();
  }
  if (pendingSize > 0) await flush();
  expect(
    await send(target, "PUT", withDigest(location, blob.digest), Buffer.alloc(0), {
      "content-length": 0,
    }),
    201,
    "close chunked upload",
  );
  return (performance.now() - start) / 1000;
}

const execFileAsync = promisify(execFile);

/** Whether curl is installed: the download client of choice (see {@link download}). */
export const hasCurl = (() => {
  try {
    execFileSync("curl", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/**
 * Seconds to download a blob, discarding it. With curl where installed: on this 2-core machine
 * Node's HTTP client tops out near 700 MiB/s and would measure itself, not the registry.
 * Otherwise with Node's client.
 */
export async function download(
  target: RegistryTarget,
  digest: string,
  size: number,
): Promise<number> {
  const path = `/v2/${target.repo}/blobs/${digest}`;
  if (!hasCurl) {
    const start = performance.now();
    const answer = expect(await send(target, "GET", path), 200, "download");
    if (answer.bytes !== size) throw new Error(`download: ${answer.bytes} bytes, expected ${size}`);
    return (performance.now() - start) / 1000;
  }
  const auth = target.token ? ["-H", `authorization: Bearer ${target.token}`] : [];
  const format = "%{http_code} %{size_download} %{time_total}";
  const { stdout } = await execFileAsync("curl", [
    ...["-sS", "-o", "/dev/null", "-w", format, ...auth, new URL(path, target.url).href],
  ]);
  const [status, bytes, seconds] = stdout.trim().split(" ").map(Number);
  expect({ status, headers: {}, bytes }, 200, "download");
  if (bytes !== size) throw new Error(`download: ${bytes} bytes, expected ${size}`);
  return seconds;
}

/** Pushes a tiny image (config + manifest) and returns the manifest digest. */
export async function pushSmallImage(target: RegistryTarget, tag: string): Promise<string> {
  const config = Buffer.from(
    JSON.stringify({
      architecture: "amd64",
      os: "linux",
      rootfs: { type: "layers", diff_ids: [] },
    }),
  );
  const configDigest = `sha256:${createHash("sha256").update(config).digest("hex")}`;
  const location = await startUpload(target);
  expect(
    await send(target, "PUT", withDigest(location, configDigest), config, {
      "content-length": config.length,
    }),
    201,
    "config",
  );
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      config: {
        mediaType: "application/vnd.oci.image.config.v1+json",
        digest: configDigest,
        size: config.length,
      },
      layers: [],
    }),
  );
  expect(
    await send(target, "PUT", `/v2/${target.repo}/manifests/${tag}`, manifest, {
      "content-type": "application/vnd.oci.image.manifest.v1+json",
      "content-length": manifest.length,
    }),
    201,
    "manifest",
  );
  return `sha256:${createHash("sha256").update(manifest).digest("hex")}`;
}

/** Requests per second for `total` requests of `method` on a manifest, over 16 connections. */
export async function manifestRate(
  target: RegistryTarget,
  method: "GET" | "HEAD",
  reference: string,
  total = 20_000,
): Promise<number> {
  const accept = "application/vnd.oci.image.manifest.v1+json";
  let issued = 0;
  const worker = async () => {
    while (issued < total) {
      issued++;
      expect(
        await send(target, method, `/v2/${target.repo}/manifests/${reference}`, undefined, {
          accept,
        }),
        200,
        `manifest ${method}`,
      );
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: 16 }, worker));
  return total / ((performance.now() - start) / 1000);
}

/**
 * Manifest GETs of `path` on `target` for `seconds`, by wrk over 16 connections (a process of
 * its own, so this process's work never slows the client): requests/s and the non-2xx answers
 * and socket errors wrk counted.
 */
export async function wrkManifestGets(
  target: RegistryTarget,
  path: string,
  seconds: number,
  threads = 2,
): Promise<{ rate: number; errors: number }> {
  const headers = ["-H", "accept: application/vnd.oci.image.manifest.v1+json"];
  if (target.token) headers.push("-H", `authorization: Bearer ${target.token}`);
  const args = [`-t${threads}`, "-c16", `-d${seconds}s`, "--timeout", "30s", ...headers];
  const { stdout } = await execFileAsync("wrk", [...args, new URL(path, target.url).href]);
  return parseWrk(stdout);
}

/** wrk's summary: requests/s, transfer/s in MiB, non-2xx answers and socket errors. */
export function parseWrk(text: string): { rate: number; mib: number; errors: number } {
  const rate = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? Number.NaN);
  const transfer = /Transfer\/sec:\s+([\d.]+)([KMG]?B)/.exec(text);
  const scale = { B: 1 / 1048576, KB: 1 / 1024, MB: 1, GB: 1024 }[transfer?.[2] ?? "B"] ?? 0;
  const mib = Number(transfer?.[1] ?? 0) * scale;
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const errors = non2xx + (socket ? socket.slice(1).reduce((n, v) => n + Number(v), 0) : 0);
  return { rate, mib, errors };
}
