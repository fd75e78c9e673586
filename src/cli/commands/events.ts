import { readFile } from "node:fs/promises";
import { parseHttpRequestText, verifyDelivery } from "../../events/index.ts";
import { UsageError } from "../cli-context.ts";
import { flagText, type GroupNode, type VerbNode } from "../command-spec.ts";
import { groupUid } from "../names.ts";
import { resourceCommands } from "../resources/crud.ts";
import { subscriptions } from "../resources/subscriptions.ts";
import { receive } from "./events-receive.ts";

/** `lading events verify`: checks a saved delivery as a receiver must (reference §7.3). */
const verify: VerbNode = {
  kind: "verb",
  name: "verify",
  summary: "Check a received event delivery: signature, audience, group and body digest",
  flags: [
    {
      name: "group",
      value: "GROUP",
      help: "the group (uid or name) the subscription was created under",
      required: true,
    },
    { name: "issuer", value: "URL", help: "Lading's issuer URL (default: the API URL)" },
    { name: "file", value: "FILE", help: "the HTTP/1.1 request text, or - for stdin (default -)" },
  ],
  examples: ["lading events verify --group $ORG --file request.http"],
  async run(ctx, parsed) {
    const group = await groupUid(ctx, flagText(parsed, "group") ?? "");
    const file = flagText(parsed, "file") ?? "-";
    const text =
      file === "-"
        ? await readAll(process.stdin)
        : await readFile(file).catch(() => {
            throw new UsageError(`cannot read ${file}`);
          });
    const request = parseHttpRequestText(text);
    if (request.error !== undefined) {
      ctx.stderr.write(`not verified: ${request.error}\n`);
      return 1;
    }
    const checked = await verifyDelivery(request.value, {
      group,
      issuer: flagText(parsed, "issuer") ?? ctx.apiUrl,
    });
    if (checked.error) {
      ctx.stderr.write(`not verified (${checked.error.status}): ${checked.error.reason}\n`);
      return 1;
    }
    const { id, type, subject } = checked.value;
    if (ctx.output === "json")
      ctx.stdout.write(`${JSON.stringify({ ok: true, id, type, subject })}\n`);
    else ctx.stdout.write(`OK ${type} ${id} ${subject}\n`);
    return 0;
  },
};

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

/** `lading events …`. */
export const eventsCommands: GroupNode = {
  kind: "group",
  name: "events",
  summary: "Webhook subscriptions, their delivery logs, and checking or receiving deliveries",
  children: [resourceCommands(subscriptions), verify, receive],
};
