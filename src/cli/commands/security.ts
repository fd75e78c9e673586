import type { GroupNode } from "../command-spec.ts";
import { advisories, vulnsMetadata } from "../resources/advisories.ts";
import { resourceCommands } from "../resources/crud.ts";

/** `lading advisories …`. */
export const advisoriesCommands: GroupNode = resourceCommands(advisories);

/** `lading vulns …`. */
export const vulnsCommands: GroupNode = {
  kind: "group",
  name: "vulns",
  summary: "Vulnerability metadata: CVSS, CISA KEV, EPSS and CWE by CVE or other id",
  children: [vulnsMetadata],
};
