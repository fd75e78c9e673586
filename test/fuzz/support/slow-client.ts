import net from "node:net";
import fc from "fast-check";
import { type RawAnswer, sendDrip } from "./raw-http.ts";

/**
 * How a request goes wrong on the wire: cut after `cut` of its bytes and closed at once or
 * after a stall, or sent whole but in small chunks with pauses (with some declared body bytes
 * never sent when `missing` > 0).
 */
export interface SlowCase {
  /** Which request to send (a name the test resolves). */
  template: string;
  behaviour: "cut-close" | "cut-stall-close" | "drip";
  /** Fraction of the bytes sent before cutting, 0 to 1. */
  cut: number;
  /** Pause before closing a stalled request, or between dripped chunks. */
  pauseMs: number;
  /** Bytes per dripped chunk. */
  chunk: number;
  /** Bytes of declared body a drip never sends. */
  missing: number;
}

/** Slow cases over `templates`, pauses short enough for a bounded suite. */
export function slowCase(templates: string[]): fc.Arbitrary<SlowCase> {
  return fc.record({
    template: fc.constantFrom(...templates),
    behaviour: fc.constantFrom("cut-close", "cut-stall-close", "drip"),
    cut: fc.double({ min: 0, max: 1, noNaN: true }),
    pauseMs: fc.integer({ min: 0, max: 150 }),
    chunk: fc.integer({ min: 1, max: 2048 }),
    missing: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 100 })),
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** At most this many dripped chunks, so that one case stays well under a second. */
const maxChunks = 20;

/**
 * Sends `bytes` to `origin` as `c` says. A whole HTTP/1.1 request dripped resolves with its
 * answer (within 5 s of its last byte); every other case resolves with whatever answer came
 * before the client closed, if any.
 */
export async function sendSlowly(
  origin: string,
  bytes: Buffer,
  c: SlowCase,
  http1: boolean,
): Promise<RawAnswer | undefined> {
  const url = new URL(origin);
  const chunk = Math.max(c.chunk, Math.ceil(bytes.length / maxChunks));
  if (c.behaviour === "drip" && c.missing === 0 && http1) {
    return sendDrip(origin, { bytes, chunk, pauseMs: Math.min(c.pauseMs, 40) });
  }
  const socket = net.connect(Number(url.port), url.hostname);
  socket.on("error", () => undefined);
  const received: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => received.push(chunk));
  await new Promise((resolve) => socket.once("connect", resolve));
  if (c.behaviour === "drip") {
    const sent = bytes.subarray(0, Math.max(0, bytes.length - c.missing));
    for (let at = 0; at < sent.length && !socket.destroyed; at += chunk) {
      socket.write(sent.subarray(at, at + chunk));
      await sleep(Math.min(c.pauseMs, 40));
    }
    await sleep(c.pauseMs);
  } else {
    socket.write(bytes.subarray(0, Math.floor(bytes.length * c.cut)));
    if (c.behaviour === "cut-stall-close") await sleep(c.pauseMs);
  }
  socket.destroy();
  const text = Buffer.concat(received).toString("latin1");
  const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
  return status === undefined
    ? undefined
    : { status: Number(status), headers: {}, body: Buffer.alloc(0), ms: 0 };
}

/** Connections left hanging on partial heads, until closed. */
export interface Stalled {
  close(): void;
}

/** Opens `perOrigin` connections to each origin, each sending one of `partials` and no more. */
export async function openStalled(
  origins: string[],
  partials: string[],
  perOrigin: number,
): Promise<Stalled> {
  const sockets: net.Socket[] = [];
  const opening: Promise<unknown>[] = [];
  for (const origin of origins) {
    const url = new URL(origin);
    for (let i = 0; i < perOrigin; i++) {
      const socket = net.connect(Number(url.port), url.hostname);
      socket.on("error", () => undefined);
      sockets.push(socket);
      opening.push(
        new Promise((resolve) =>
          socket.once("connect", () => socket.write(partials[i % partials.length], resolve)),
        ),
      );
    }
  }
  await Promise.all(opening);
  return {
    close() {
      for (const socket of sockets) socket.destroy();
    },
  };
}
