import type { GroupNode } from "../command-spec.ts";
import { libraryVerbs } from "../resources/libraries.ts";

/** `lading libraries …`. */
export const librariesCommands: GroupNode = {
  kind: "group",
  name: "libraries",
  summary: "Python, JavaScript and Java packages: the catalogue and their advisories",
  children: libraryVerbs,
};
