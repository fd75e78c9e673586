import type { GroupNode } from "../command-spec.ts";
import { resourceCommands } from "../resources/crud.ts";
import { garbageCollections } from "../resources/garbage-collections.ts";

/** `lading storage …`: what the operators do to the registry's storage through the API. */
export const storageCommands: GroupNode = {
  kind: "group",
  name: "storage",
  summary: "The registry's storage: garbage collections (the installation's operators only)",
  children: [resourceCommands(garbageCollections)],
};
