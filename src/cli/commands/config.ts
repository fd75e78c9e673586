import { type CliConfigKey, configKeys, readConfig, writeConfig } from "../cli-config.ts";
import { outputFormatsText, UsageError, validSetting } from "../cli-context.ts";
import type { GroupNode } from "../command-spec.ts";

/** Command-line key names → config.json keys. */
const keyNames: Record<string, CliConfigKey> = {
  api: "api",
  registry: "registry",
  "identity-provider": "identityProvider",
  output: "output",
};

const keyList = Object.keys(keyNames).join(", ");

function keyOf(text: string): CliConfigKey {
  const key = keyNames[text];
  if (!key) throw new UsageError(`unknown config key "${text}": one of ${keyList}`);
  return key;
}

function check(key: CliConfigKey, value: string): void {
  if (key === "identityProvider" || validSetting(key, value)) return;
  throw new UsageError(
    key === "output" ? `output must be ${outputFormatsText}` : `${key} must be an http(s) URL`,
  );
}

const displayName = (key: CliConfigKey) =>
  Object.keys(keyNames).find((name) => keyNames[name] === key) ?? key;

/** `lading config get|set|unset|list`: the stored defaults in config.json. */
export const configCommands: GroupNode = {
  kind: "group",
  name: "config",
  summary: `Stored defaults (${keyList}) in $XDG_CONFIG_HOME/lading/config.json`,
  children: [
    {
      kind: "verb",
      name: "get",
      summary: "Print a stored value (nothing if unset)",
      args: "KEY",
      minArgs: 1,
      flags: [],
      examples: ["lading config get api"],
      async run(ctx, parsed) {
        const value = (await readConfig(ctx.configDir))[keyOf(parsed.args[0])];
        if (value !== undefined) ctx.stdout.write(`${value}\n`);
        return 0;
      },
    },
    {
      kind: "verb",
      name: "set",
      summary: "Store a value",
      args: "KEY VALUE",
      minArgs: 2,
      flags: [],
      examples: ["lading config set api https://lading.example.com"],
      async run(ctx, parsed) {
        const key = keyOf(parsed.args[0]);
        const value =
          key === "api" || key === "registry" ? parsed.args[1].replace(/\/+$/, "") : parsed.args[1];
        check(key, value);
        await writeConfig(ctx.configDir, { ...(await readConfig(ctx.configDir)), [key]: value });
        return 0;
      },
    },
    {
      kind: "verb",
      name: "unset",
      summary: "Remove a stored value",
      args: "KEY",
      minArgs: 1,
      flags: [],
      examples: ["lading config unset registry"],
      async run(ctx, parsed) {
        const config = await readConfig(ctx.configDir);
        delete config[keyOf(parsed.args[0])];
        await writeConfig(ctx.configDir, config);
        return 0;
      },
    },
    {
      kind: "verb",
      name: "list",
      summary: "Print every stored value, and the values in effect",
      flags: [],
      examples: ["lading config list", "lading config list -o json"],
      async run(ctx) {
        const stored = await readConfig(ctx.configDir);
        const effective = { api: ctx.apiUrl, registry: ctx.registryUrl, output: ctx.output };
        if (ctx.output === "json") {
          ctx.stdout.write(`${JSON.stringify({ stored, effective }, null, 2)}\n`);
          return 0;
        }
        for (const key of configKeys) {
          const inEffect = (effective as Record<string, string>)[key];
          const value = stored[key] ?? "";
          const note =
            inEffect !== undefined && inEffect !== value ? `  (in effect: ${inEffect})` : "";
          ctx.stdout.write(`${displayName(key)}=${value}${note}\n`);
        }
        return 0;
      },
    },
  ],
};
