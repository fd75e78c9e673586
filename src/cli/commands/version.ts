import { readFileSync } from "node:fs";
import type { LocalVerbNode } from "../command-spec.ts";

/** The version in Lading's package.json. */
export function ladingVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8"));
  return String(pkg.version);
}

/** `lading version` (also `lading --version` and `-V`). */
export const versionCommand: LocalVerbNode = {
  kind: "local",
  name: "version",
  summary: "Print the Lading version (also --version, -V)",
  flags: [],
  async run(_parsed, out) {
    out.stdout.write(`lading ${ladingVersion()}\n`);
    return 0;
  },
};
