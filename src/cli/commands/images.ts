import type { GroupNode } from "../command-spec.ts";
import { resourceCommands } from "../resources/crud.ts";
import { history, repos, tags } from "../resources/registry.ts";

/** `lading images …`. */
export const imagesCommands: GroupNode = {
  kind: "group",
  name: "images",
  summary: "Registry repositories, tags and tag history",
  children: [resourceCommands(repos), resourceCommands(tags), history],
};
