import type { GroupNode } from "../command-spec.ts";
import { resourceCommands } from "../resources/crud.ts";
import { diff } from "../resources/image-diff.ts";
import { history } from "../resources/image-history.ts";
import { vex } from "../resources/image-vex.ts";
import { repos, tags } from "../resources/registry.ts";
import { restore, tagPolicies } from "../resources/tag-lifecycle.ts";

/** `lading images …`. */
export const imagesCommands: GroupNode = {
  kind: "group",
  name: "images",
  summary: "Registry repositories, tags, tag history and policies, restores, image diffs and VEX",
  children: [
    resourceCommands(repos),
    resourceCommands(tags),
    resourceCommands(tagPolicies),
    history,
    restore,
    diff,
    vex,
  ],
};
