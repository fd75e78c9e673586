import type { CliContext } from "./cli-context.ts";
import type { GroupNode } from "./command-spec.ts";
import { admin } from "./commands/admin.ts";
import { authVerbs, runAuth } from "./commands/auth.ts";
import { completionCommands } from "./commands/completion.ts";
import { configCommands } from "./commands/config.ts";
import { configOptions } from "./commands/config-flags.ts";
import { iamCommands } from "./commands/iam.ts";
import { imagesCommands } from "./commands/images.ts";
import { serve } from "./commands/serve.ts";

const serverFlags = Object.keys(configOptions).map((name) => `--${name}`);

/** The whole command tree: the one source of help and completion. */
export const commandTable: GroupNode = {
  kind: "group",
  name: "lading",
  summary: "lading: a self-hostable container platform",
  children: [
    {
      kind: "delegate",
      name: "auth",
      summary: "Sign in, print tokens, configure docker, create pull tokens",
      children: authVerbs,
      run: (args: string[], ctx: CliContext) => runAuth(args, ctx),
    },
    iamCommands,
    imagesCommands,
    configCommands,
    completionCommands(() => commandTable),
    {
      kind: "raw",
      name: "serve",
      summary: "Run the server (API and registry listeners)",
      words: [],
      flags: serverFlags,
      run: serve,
    },
    {
      kind: "raw",
      name: "admin",
      summary: "Operator commands on the store: migrate, bootstrap, token",
      words: ["migrate", "bootstrap", "token"],
      flags: [...serverFlags, "--org", "--identity", "--audience", "--ttl"],
      run: admin,
    },
  ],
};
