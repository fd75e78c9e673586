import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";

/** Where {@link floodUploads} pushes: a registry URL, a repository and a push token. */
export interface FloodTarget {
  url: string;
  repo: string;
  token: string;
}

/** How {@link floodUploads} pushes. */
export interface FloodOptions {
  count: number;
  sizeMiB: number;
  /** `monolithic`: one POST with the body and its digest; `chunked`: POST, PATCH, PUT. */
  mode: "monolithic" | "chunked";
}

const MiB = 1 << 20;

/** Resident memory of a process now (VmRSS), in MiB. */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** Samples a process's RSS every 20 ms until `stop`, which returns the highest seen (MiB). */
export function watchRss(pid: number): { stop(): number } {
  let peak = rssMiB(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMiB(pid));
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, rssMiB(pid));
    },
  };
}

/**
 * Waits up to `withinMs` for a process's RSS to fall to `limitMiB` or below; returns the last
 * reading.
 */
export async function rssSettles(pid: number, limitMiB: number, withinMs: number) {
  const until = Date.now() + withinMs;
  let now = rssMiB(pid);
  while (now > limitMiB && Date.now() < until) {
    await sleep(500);
    now = rssMiB(pid);
  }
  return now;
}

/**
 * Pushes `count` distinct blobs of `sizeMiB` MiB at once and returns their digests. Each body is
 * one shared block of random bytes behind a unique 32-byte head, streamed in 64 KiB writes, so
 * the client holds little more than one blob however many are in flight. Rejects unless every
 * upload got its 201.
 */
export async function floodUploads(target: FloodTarget, options: FloodOptions): Promise<string[]> {
  const size = options.sizeMiB * MiB;
  const shared = randomBytes(size - 32);
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  try {
    return await Promise.all(
      Array.from({ length: options.count }, async () => {
        const head = randomBytes(32);
        const digest = `sha256:${createHash("sha256").update(head).update(shared).digest("hex")}`;
        const parts = [head, shared];
        if (options.mode === "monolithic") {
          const path = `/v2/${target.repo}/blobs/uploads/?digest=${digest}`;
          await send(agent, target, "POST", path, parts, 201);
          return digest;
        }
        const started = await send(
          agent,
          target,
          "POST",
          `/v2/${target.repo}/blobs/uploads/`,
          [],
          202,
        );
        const location = started.location as string;
        const half = Math.floor(size / 2);
        const first = [head, shared.subarray(0, half - 32)];
        await send(agent, target, "PATCH", location, first, 202, `0-${half - 1}`);
        const rest = [shared.subarray(half - 32)];
        const close = `${location}${location.includes("?") ? "&" : "?"}digest=${digest}`;
        await send(agent, target, "PUT", close, rest, 201, `${half}-${size - 1}`);
        return digest;
      }),
    );
  } finally {
    agent.destroy();
  }
}

function send(
  agent: Agent,
  target: FloodTarget,
  method: string,
  path: string,
  parts: Buffer[],
  expected: number,
  range?: string,
): Promise<Record<string, string | string[] | undefined>> {
  const length = parts.reduce((sum, part) => sum + part.byteLength, 0);
  const url = new URL(path, target.url);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        agent,
        method,
        headers: {
          authorization: `Bearer ${target.token}`,
          "content-type": "application/octet-stream",
          "content-length": String(length),
          ...(range ? { "content-range": range } : {}),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => {
          if (res.statusCode === expected) resolve(res.headers);
          else reject(new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`));
        });
      },
    );
    req.on("error", reject);
    writeParts(req, parts).then(
      () => req.end(),
      (error) => req.destroy(error),
    );
  });
}

/** Writes the parts in 64 KiB pieces, waiting for `drain` as a real client does. */
async function writeParts(req: NodeJS.WritableStream, parts: Buffer[]) {
  for (const part of parts) {
    for (let at = 0; at < part.byteLength; at += 64 * 1024) {
      if (!req.write(part.subarray(at, at + 64 * 1024))) {
        await new Promise((resolve) => req.once("drain", resolve));
      }
    }
  }
}
