import { createApiClient } from "../api-client.ts";
import type { VerbNode } from "../command-spec.ts";
import { parseImageRef, resolveImageRef } from "./image-refs.ts";

/** `lading images vex <ref>`. */
export const vex: VerbNode = {
  kind: "verb",
  name: "vex",
  summary: "Print an image's OpenVEX document (the document is JSON whatever -o says)",
  args: "<org>/<image>@<digest>|<org>/<image>:<tag>",
  minArgs: 1,
  maxArgs: 1,
  flags: [],
  examples: ["lading images vex acme/app:latest > app.openvex.json"],
  async run(ctx, parsed) {
    const api = createApiClient(ctx);
    const { repoUid, digest } = await resolveImageRef(api, parseImageRef(parsed.args[0]));
    const document = await api.get("/registry/v2/images:vex", { repo: repoUid, digest });
    ctx.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    return 0;
  },
};
