import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { parseListen } from "../../config/config.ts";
import { parseDurationMs } from "../../config/duration.ts";
import { issuerKeys, verifyDelivery } from "../../events/index.ts";
import { type CliContext, UsageError } from "../cli-context.ts";
import { flagText, type ParsedArgs, type VerbNode } from "../command-spec.ts";
import { groupUid } from "../names.ts";

/** Largest delivery body the receiver reads. */
const maxBodyBytes = 16 * 1024 * 1024;

/**
 * `lading events receive`: a local webhook receiver for trying subscriptions. Each delivery is
 * checked as `events verify` checks a saved one, answered as the reference receiver answers
 * (200, or 400/401/403 with the reason), and printed as one line.
 */
export const receive: VerbNode = {
  kind: "verb",
  name: "receive",
  summary: "Run a local webhook receiver that checks and prints each event delivered to it",
  flags: [
    { name: "listen", value: "HOST:PORT", help: "where to listen (default 127.0.0.1:9000)" },
    {
      name: "group",
      value: "GROUP",
      help: "the group (uid or name) the subscription was created under",
      required: true,
    },
    { name: "issuer", value: "URL", help: "Lading's issuer URL (default: the API URL)" },
    {
      name: "until",
      value: "TYPES",
      help: "exit once an event of each of these comma-separated types has arrived",
    },
    { name: "timeout", value: "DURATION", help: "give up (exit 1) after this long, e.g. 60s" },
  ],
  examples: [
    "lading events receive --group $ORG --listen 127.0.0.1:9000",
    "lading events receive --group $ORG --until dev.lading.registry.push.v1 --timeout 60s",
  ],
  async run(ctx, parsed) {
    const options = readOptions(ctx, parsed);
    options.group = await groupUid(ctx, options.group);
    const keys = issuerKeys(options.issuer);
    const waiting = new Set(options.until);
    let done: (code: number) => void = () => undefined;
    const finished = new Promise<number>((resolve) => {
      done = resolve;
    });
    const server = createServer((req, res) => {
      answer(req, res, { ...options, keys }, ctx).then(
        (type) => {
          if (type === undefined || options.until.length === 0) return;
          waiting.delete(type);
          if (waiting.size === 0) done(0);
        },
        // A sender that hangs up mid-body is one failed request, not the receiver's end.
        (error: unknown) => {
          ctx.stderr.write(`lading: a request failed: ${(error as Error).message}\n`);
          if (!res.headersSent) res.writeHead(400).end();
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.listen.port, options.listen.host, resolve);
    });
    // Before the line that says it is ready: whoever reads it may signal at once.
    const stop = () => done(0);
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    ctx.stderr.write(`lading: receiving on http://${options.listen.host}:${options.listen.port}\n`);
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            ctx.stderr.write(`lading: no ${[...waiting].join(", ")} before the timeout\n`);
            done(1);
          }, options.timeoutMs);
    const code = await finished;
    clearTimeout(timer);
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    return code;
  },
};

interface ReceiveOptions {
  listen: { host: string; port: number };
  group: string;
  issuer: string;
  until: string[];
  timeoutMs: number | undefined;
}

function readOptions(ctx: CliContext, parsed: ParsedArgs): ReceiveOptions {
  let listen: { host: string; port: number };
  try {
    listen = parseListen(flagText(parsed, "listen") ?? "127.0.0.1:9000", "--listen");
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const timeout = flagText(parsed, "timeout");
  const timeoutMs = timeout === undefined ? undefined : parseDurationMs(timeout);
  if (timeoutMs?.error !== undefined) throw new UsageError(`--timeout: ${timeoutMs.error}`);
  const until = (flagText(parsed, "until") ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t !== "");
  return {
    listen,
    group: flagText(parsed, "group") ?? "",
    issuer: flagText(parsed, "issuer") ?? ctx.apiUrl,
    until,
    timeoutMs: timeoutMs?.value,
  };
}

/** Checks one request and answers it; returns the event type when it was verified. */
async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  options: ReceiveOptions & { keys: ReturnType<typeof issuerKeys> },
  ctx: CliContext,
): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBodyBytes) {
      res.writeHead(413).end();
      return undefined;
    }
    chunks.push(chunk);
  }
  const checked = await verifyDelivery(
    { headers: req.headers, body: Buffer.concat(chunks) },
    { group: options.group, issuer: options.issuer, keys: options.keys },
  );
  if (checked.error) {
    ctx.stdout.write(`refused (${checked.error.status}): ${checked.error.reason}\n`);
    res.writeHead(checked.error.status, { "content-type": "text/plain" }).end(checked.error.reason);
    return undefined;
  }
  const { type, subject, id } = checked.value;
  if (ctx.output === "json") {
    ctx.stdout.write(`${JSON.stringify({ ok: true, id, type, subject })}\n`);
  } else ctx.stdout.write(`OK ${type} ${subject}\n`);
  res.writeHead(200).end();
  return type;
}
