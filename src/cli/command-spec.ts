import { parseArgs } from "node:util";
import { type CliContext, outputFormatsText, UsageError } from "./cli-context.ts";
import { closest } from "./suggest.ts";

/** One flag of a verb. */
export interface FlagSpec {
  /** Long name without the dashes. */
  name: string;
  /** Boolean flags take no value; string flags do (default string). */
  type?: "string" | "boolean";
  /** May be given several times. */
  multiple?: boolean;
  /** Placeholder shown in help (default VALUE). */
  value?: string;
  /** One line of help. */
  help: string;
  /** Must be given. */
  required?: boolean;
  /** The allowed values (checked, and offered by completion). */
  choices?: readonly string[];
  /** Accepted but left out of help and completion (a setting the command does not read). */
  hidden?: boolean;
}

/** Parsed verb arguments: flag values by long name, and positionals. */
export interface ParsedArgs {
  flags: Record<string, string | boolean | string[] | undefined>;
  args: string[];
}

/** A command that runs: `lading iam groups list`. */
export interface VerbNode {
  kind: "verb";
  name: string;
  summary: string;
  /** Positional arguments in help, e.g. "UID" or "DOC...". */
  args?: string;
  /** Fewest and most positionals (default 0 and 0). */
  minArgs?: number;
  maxArgs?: number;
  flags: FlagSpec[];
  /** Example command lines for help. */
  examples?: string[];
  run(ctx: CliContext, parsed: ParsedArgs): Promise<number | undefined>;
}

/** A group of commands: `lading iam`, `lading iam groups`. */
export interface GroupNode {
  kind: "group";
  name: string;
  summary: string;
  children: CommandNode[];
}

/** Where a command that needs no client context writes. */
export interface CommandOutput {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** `-o`/`--output` as given, for a local verb that prints a result (main.ts). */
  output?: string;
}

/**
 * A command that works on this machine and needs neither a server nor the client settings
 * (serve, admin, version): a bad LADING_OUTPUT or config.json must not stop the server.
 */
export interface LocalVerbNode extends Omit<VerbNode, "kind" | "run"> {
  kind: "local";
  run(parsed: ParsedArgs, out: CommandOutput): Promise<number | undefined>;
}

/** Any node of the command table. */
export type CommandNode = VerbNode | LocalVerbNode | GroupNode;

/** The global flags every command that talks to the API accepts (see main.ts). */
export const globalFlagNames = ["api", "registry", "output", "help"] as const;

/**
 * The usage error for an unknown flag `raw` given to `lading <path>`, suggesting the closest of
 * `known` (long names without dashes).
 */
export function unknownFlag(raw: string, known: readonly string[], path: string[]): UsageError {
  const where = ["lading", ...path].join(" ");
  const guess = closest(raw.replace(/^--?/, "").split("=")[0], known);
  const hint = guess ? `: did you mean --${guess}?` : "";
  return new UsageError(
    `unknown flag ${raw.split("=")[0]} for ${where}${hint} (see ${where} --help)`,
  );
}

/** A verb's flag values, typed. */
export function flagText(parsed: ParsedArgs, name: string): string | undefined {
  const value = parsed.flags[name];
  return typeof value === "string" ? value : undefined;
}

/** A repeated flag's values. */
export function flagList(parsed: ParsedArgs, name: string): string[] {
  const value = parsed.flags[name];
  return Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
}

/**
 * Parses the arguments of the verb at `path`: unknown flags, missing required flags and bad
 * counts are usage errors.
 */
export function parseVerbArgs(
  verb: VerbNode | LocalVerbNode,
  args: string[],
  path: string[],
): ParsedArgs {
  const options: Record<string, { type: "string" | "boolean"; multiple?: boolean }> = {};
  for (const flag of verb.flags) {
    options[flag.name] = { type: flag.type ?? "string", multiple: flag.multiple === true };
  }
  // A lenient pass first finds unknown flags, so their error can name the flag meant.
  const { tokens } = parseArgs({
    args,
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const stranger = tokens.find((t) => t.kind === "option" && !Object.hasOwn(options, t.name));
  if (stranger?.kind === "option") {
    const globals = verb.kind === "local" ? ["help"] : globalFlagNames;
    const known = [...verb.flags.map((f) => f.name), ...globals];
    throw unknownFlag(stranger.rawName, known, path);
  }
  const { values, positionals } = parseArgs({
    args,
    options,
    strict: true,
    allowPositionals: true,
  });
  const parsed: ParsedArgs = { flags: values as ParsedArgs["flags"], args: positionals };
  for (const flag of verb.flags) {
    const given = parsed.flags[flag.name];
    if (flag.required && (given === undefined || given === "")) {
      throw new UsageError(`--${flag.name} ${flag.value ?? "VALUE"} is required`);
    }
    const texts = typeof given === "string" ? [given] : Array.isArray(given) ? given : [];
    if (flag.choices && texts.some((text) => !flag.choices?.includes(text))) {
      throw new UsageError(`--${flag.name} must be one of ${flag.choices.join(", ")}`);
    }
  }
  const min = verb.minArgs ?? 0;
  const max = verb.maxArgs ?? min;
  if (positionals.length < min) throw new UsageError(`missing ${verb.args ?? "argument"}`);
  if (positionals.length > max) throw new UsageError(`unexpected argument: ${positionals[max]}`);
  return parsed;
}

const localFlagsHelp = `flags of every command:
  -h, --help             this help
`;

const globalFlagsHelp = `global flags (before or after the command words):
  --api URL              Lading API URL (LADING_API_URL, config api; default http://127.0.0.1:8080)
  --registry URL         registry URL (LADING_REGISTRY_URL, config registry; default http://127.0.0.1:5000)
  -o, --output FORMAT    ${outputFormatsText}
                         (LADING_OUTPUT, config output; default table)
  -h, --help             this help
`;

const versionHelp = `  -V, --version          the Lading version
`;

function columns(rows: [string, string][]): string {
  const width = Math.max(0, ...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}\n`).join("");
}

/** Help for `node` reached through `path` (the command words). */
export function helpFor(node: CommandNode, path: string[]): string {
  const prefix = ["lading", ...path].join(" ");
  const local =
    node.kind === "local" ||
    (node.kind === "group" && node.children.every((c) => c.kind === "local"));
  const tail = `${local ? localFlagsHelp : globalFlagsHelp}${path.length ? "" : versionHelp}`;
  if (node.kind !== "group") {
    const usage = `usage: ${prefix}${node.args ? ` ${node.args}` : ""}${node.flags.length ? " [flags]" : ""}\n`;
    const shown = node.flags.filter((f) => !f.hidden);
    const flags = shown.map((f): [string, string] => [
      `--${f.name}${f.type === "boolean" ? "" : ` ${f.value ?? "VALUE"}`}`,
      `${f.help}${f.required ? " (required)" : ""}${f.multiple ? " (repeatable)" : ""}`,
    ]);
    const examples = node.examples?.length
      ? `\nexamples:\n${node.examples.map((e) => `  ${e}\n`).join("")}`
      : "";
    const ignored =
      shown.length < node.flags.length
        ? "  (the other `lading serve` flags are accepted and ignored)\n"
        : "";
    return `${node.summary}\n\n${usage}${flags.length ? `\nflags:\n${columns(flags)}${ignored}` : ""}${examples}\n${tail}`;
  }
  const list = columns(node.children.map((c): [string, string] => [c.name, c.summary]));
  return `${node.summary}\n\nusage: ${prefix} <command> [flags]\n\ncommands:\n${list}\n${tail}Run \`${prefix} <command> --help\` for a command's flags.\n`;
}
