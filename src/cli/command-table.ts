import type { GroupNode } from "./command-spec.ts";
import { adminCommands } from "./commands/admin.ts";
import { authCommands } from "./commands/auth.ts";
import { completionCommands } from "./commands/completion.ts";
import { configCommands } from "./commands/config.ts";
import { eventsCommands } from "./commands/events.ts";
import { iamCommands } from "./commands/iam.ts";
import { imagesCommands } from "./commands/images.ts";
import { librariesCommands } from "./commands/libraries.ts";
import { advisoriesCommands, vulnsCommands } from "./commands/security.ts";
import { serveCommand } from "./commands/serve.ts";
import { storageCommands } from "./commands/storage.ts";
import { versionCommand } from "./commands/version.ts";

/** The whole command tree: the one source of dispatch, help and completion. */
export const commandTable: GroupNode = {
  kind: "group",
  name: "lading",
  summary: "lading: a self-hostable container platform",
  children: [
    authCommands,
    iamCommands,
    imagesCommands,
    librariesCommands,
    advisoriesCommands,
    vulnsCommands,
    eventsCommands,
    storageCommands,
    configCommands,
    completionCommands(() => commandTable),
    serveCommand,
    adminCommands,
    versionCommand,
  ],
};
