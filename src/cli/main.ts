import { CliError } from "./api-client.ts";
import { type GlobalFlags, resolveCliContext, UsageError } from "./cli-context.ts";
import {
  type CommandNode,
  type CommandOutput,
  globalFlagNames,
  helpFor,
  parseVerbArgs,
  unknownFlag,
} from "./command-spec.ts";
import { commandTable } from "./command-table.ts";
import { closest } from "./suggest.ts";

/** The global flags taken out of `args` wherever they stand, and the rest. */
export function splitGlobalFlags(args: string[]): {
  globals: GlobalFlags;
  remaining: string[];
  help: boolean;
} {
  const globals: GlobalFlags = {};
  const remaining: string[] = [];
  let help = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      remaining.push(...args.slice(i));
      break;
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const key =
      name === "--api"
        ? "api"
        : name === "--registry"
          ? "registry"
          : name === "-o" || name === "--output"
            ? "output"
            : undefined;
    if (key) {
      const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
      if (value === undefined) throw new UsageError(`${name} needs a value`);
      globals[key] = value;
    } else if (arg.startsWith("-o") && arg.length > 2 && !arg.startsWith("--")) {
      globals.output = arg.slice(2);
    } else if (arg === "-h" || arg === "--help") help = true;
    else remaining.push(arg);
  }
  return { globals, remaining, help };
}

/** Walks the command words; returns the node reached, its path and the arguments left. */
function locate(words: string[]): { node: CommandNode; path: string[]; rest: string[] } {
  let node: CommandNode = commandTable;
  const path: string[] = [];
  let i = 0;
  while (node.kind === "group" && i < words.length) {
    const word = words[i];
    const names: string[] = node.children.map((c) => c.name);
    const child: CommandNode | undefined = node.children.find((c) => c.name === word);
    if (!child) {
      if (word.startsWith("-")) break;
      const where = ["lading", ...path].join(" ");
      const guess = closest(word, names);
      const hint = guess ? `: did you mean ${guess}?` : "";
      throw new UsageError(`unknown command "${word}" for ${where}${hint} (see ${where} --help)`);
    }
    node = child;
    path.push(word);
    i++;
  }
  return { node, path, rest: words.slice(i) };
}

async function dispatch(args: string[], out: CommandOutput): Promise<number> {
  if (args[0] === "help") return dispatch([...args.slice(1), "--help"], out);
  const { globals, remaining, help } = splitGlobalFlags(args);
  if (remaining[0] === "--version" || remaining[0] === "-V") remaining[0] = "version";
  const { node, path, rest } = locate(remaining);
  if (help) {
    out.stdout.write(helpFor(node, path));
    return 0;
  }
  if (node.kind === "group") {
    if (rest.length) {
      throw unknownFlag(
        rest[0],
        path.length ? globalFlagNames : [...globalFlagNames, "version"],
        path,
      );
    }
    out.stderr.write(helpFor(node, path));
    return 2;
  }
  const parsed = parseVerbArgs(node, rest, path);
  if (node.kind === "local")
    return (await node.run(parsed, { ...out, output: globals.output })) ?? 0;
  const ctx = await resolveCliContext(globals, process.env, out);
  return (await node.run(ctx, parsed)) ?? 0;
}

/** Runs the CLI and returns the exit code: 0 ok, 1 error, 2 usage error. */
export async function main(
  args: string[],
  out: CommandOutput = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  try {
    return await dispatch(args, out);
  } catch (error) {
    if (error instanceof CliError) {
      out.stderr.write(`${error.lines.join("\n")}\n`);
      return 1;
    }
    const e = error as { code?: string; message?: string };
    out.stderr.write(`lading: ${e.message ?? String(error)}\n`);
    return error instanceof UsageError || e.code?.startsWith("ERR_PARSE_ARGS") ? 2 : 1;
  }
}
