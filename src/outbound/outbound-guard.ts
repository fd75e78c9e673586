import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import {
  type AllowList,
  allowNothing,
  createAllowList,
  normalHost,
  type OutboundAllow,
} from "./allow-list.ts";
import { destinationProblem } from "./destination.ts";
import { guardedLookup, type Resolver, systemResolver } from "./guarded-lookup.ts";
import { notAllowed, OutboundError } from "./outbound-error.ts";

/** How the guard is set up: the operator's allow list, and how names resolve. */
export interface OutboundGuardOptions {
  /** Internal hosts and CIDRs the operator allows (`--outbound-allow`). Default none. */
  allow?: OutboundAllow;
  /** Resolves host names. Default the system resolver (`dns.lookup`); tests inject names. */
  resolve?: Resolver;
}

/** One request through the guard. Every bound has a default, so none is ever unbounded. */
export interface OutboundRequestInit {
  /** Default GET. */
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Deadline of the whole request, every redirect included, connect to last byte. Default 10 s. */
  timeoutMs?: number;
  /** Largest answer body read; a larger one fails the request (`too_large`). Default 1 MiB. */
  maxBytes?: number;
  /**
   * Redirects followed, GET only, each hop checked like the first. Default 0: a 3xx is the
   * answer. At most {@link maxRedirectsLimit}.
   */
  maxRedirects?: number;
  /** false: the answer's body is discarded unread (its headers suffice). Default true. */
  readBody?: boolean;
  /** Aborts the request (`aborted`). */
  signal?: AbortSignal;
}

/** An answer: its status, headers and (bounded) body, and the URL that gave it. */
export interface OutboundResponse {
  status: number;
  headers: Headers;
  body: Buffer;
  url: string;
}

/** A fetch-shaped function (as jose's `customFetch` calls it) that goes through the guard. */
export type GuardedFetch = (
  url: string,
  init?: {
    method?: string;
    headers?: ConstructorParameters<typeof Headers>[0];
    signal?: AbortSignal;
  },
) => Promise<Response>;

/** The one way Lading sends a request on a tenant's or an anonymous caller's behalf. */
export interface OutboundGuard {
  /** Why `url` is refused before any resolution (scheme, literal internal address); else undefined. */
  destinationProblem(url: string | URL): string | undefined;
  /** Sends one request; rejects with an {@link OutboundError}. */
  request(url: string | URL, init?: OutboundRequestInit): Promise<OutboundResponse>;
  /** Closes the kept-alive connections. */
  close(): void;
  /** A fetch-shaped GET with these bounds, for libraries that fetch themselves (JWKS). */
  fetcher(
    bounds: Pick<OutboundRequestInit, "timeoutMs" | "maxBytes" | "maxRedirects">,
  ): GuardedFetch;
}

/** Most redirects any request follows. */
export const maxRedirectsLimit = 10;
const redirectStatuses = new Set([301, 302, 303, 307, 308]);
/** Statuses whose Response may not have a body. */
const nullBodyStatuses = new Set([204, 205, 304]);

/**
 * Creates the guard. Every request it sends: is https, or http to a loopback host; resolves its
 * host once, in the socket's own lookup, and connects only to addresses that are globally
 * reachable or that the operator allows; checks each redirect it follows as it checked the
 * first URL; and is bounded in time and size.
 */
export function createOutboundGuard(options: OutboundGuardOptions = {}): OutboundGuard {
  const allow: AllowList = createAllowList(options.allow ?? allowNothing);
  const resolve = options.resolve ?? systemResolver;
  const lookup = guardedLookup(allow, resolve);

  // Connections are kept alive and reused, as fetch would: every pooled socket was made by this
  // guard's lookup (or to a literal it checked), so reusing one reaches the same checked address.
  // A literal host is checked by destinationProblem before any request, and net connects to it
  // without a lookup; a name is resolved by the guarded lookup, whose answer is the address the
  // socket connects to. Idle sockets close after 4 s, before a typical server's 5 s.
  const agentOptions = { keepAlive: true, timeout: 4000, scheduling: "lifo" as const, lookup };
  const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };

  function hop(
    url: URL,
    init: OutboundRequestInit,
    signal: AbortSignal,
    retry = true,
  ): Promise<IncomingMessage> {
    const problem = destinationProblem(url, allow);
    if (problem) return Promise.reject(notAllowed(`${url.host} ${problem}`));
    const secure = url.protocol === "https:";
    return new Promise((resolve, reject) => {
      const req = (secure ? https : http).request(
        {
          method: init.method ?? "GET",
          hostname: normalHost(url.hostname),
          port: Number(url.port) || (secure ? 443 : 80),
          path: `${url.pathname}${url.search}`,
          headers: init.headers,
          signal,
          agent: secure ? agents.https : agents.http,
        },
        resolve,
      );
      req.once("error", (error: NodeJS.ErrnoException) => {
        // A kept-alive socket the server closed as it was reused: one fresh try (Node's advice).
        if (retry && req.reusedSocket && error.code === "ECONNRESET") {
          resolve(hop(url, init, signal, false));
        } else reject(error);
      });
      req.end(init.body);
    });
  }

  async function request(
    target: string | URL,
    init: OutboundRequestInit = {},
  ): Promise<OutboundResponse> {
    const timeoutMs = init.timeoutMs ?? 10_000;
    const maxBytes = init.maxBytes ?? 1024 * 1024;
    const maxRedirects = Math.min(init.maxRedirects ?? 0, maxRedirectsLimit);
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const failure = (error: unknown): OutboundError => {
      if (error instanceof OutboundError) return error;
      if (init.signal?.aborted) return new OutboundError("aborted", "the request was aborted");
      if (deadline.aborted) return new OutboundError("timeout", `no answer within ${timeoutMs} ms`);
      const cause = error as NodeJS.ErrnoException;
      return new OutboundError(
        "failed",
        `request failed: ${String(cause.code ?? cause.message).slice(0, 200)}`,
      );
    };
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      throw notAllowed(`${String(target).slice(0, 200)} is not a URL`);
    }
    let headers = { ...init.headers };
    for (let redirects = 0; ; redirects++) {
      const res = await hop(url, { ...init, headers }, signal).catch((error) => {
        throw failure(error);
      });
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      const method = init.method ?? "GET";
      if (
        redirectStatuses.has(status) &&
        location &&
        method === "GET" &&
        redirects < maxRedirects
      ) {
        discard(res);
        const next = URL.canParse(location, url.href) ? new URL(location, url) : undefined;
        if (!next) throw new OutboundError("failed", `request failed: bad redirect location`);
        // Credentials meant for one origin are not handed to another.
        if (next.origin !== url.origin) {
          headers = Object.fromEntries(
            Object.entries(headers).filter(([k]) => !/^(authorization|cookie)$/i.test(k)),
          );
        }
        url = next;
        continue;
      }
      if (init.readBody === false) {
        discard(res);
        return { status, headers: headersOf(res), body: Buffer.alloc(0), url: url.href };
      }
      try {
        return {
          status,
          headers: headersOf(res),
          body: await readLimited(res, maxBytes),
          url: url.href,
        };
      } catch (error) {
        res.destroy();
        throw failure(error);
      }
    }
  }

  return {
    destinationProblem: (url) => destinationProblem(url, allow),
    request,
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
    fetcher: (bounds) => async (url, init) => {
      const answer = await request(url, {
        ...bounds,
        headers: Object.fromEntries(new Headers(init?.headers)),
        signal: init?.signal,
      });
      const body = nullBodyStatuses.has(answer.status) ? null : new Uint8Array(answer.body);
      return new Response(body, { status: answer.status, headers: answer.headers });
    },
  };
}

/** Most of an unread body drained so its connection can be reused; past it, it is closed. */
const maxDiscardedBytes = 64 * 1024;

/**
 * Lets a body go unread: drained in the background (within the request's deadline, which still
 * aborts it) so its connection returns to the pool, or closed once it passes 64 KiB.
 */
function discard(res: IncomingMessage): void {
  let left = maxDiscardedBytes;
  res.on("data", (chunk: Buffer) => {
    left -= chunk.byteLength;
    if (left < 0) res.destroy();
  });
  res.on("error", () => {});
  res.resume();
}

async function readLimited(res: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const tooLarge = () =>
    new OutboundError("too_large", `the answer is larger than ${maxBytes} bytes`);
  if (Number(res.headers["content-length"] ?? 0) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    size += (chunk as Buffer).byteLength;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function headersOf(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    try {
      headers.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
    } catch {
      // A header fetch's Headers cannot hold is of no use to the callers; it is dropped.
    }
  }
  return headers;
}
