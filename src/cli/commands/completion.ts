import { UsageError } from "../cli-context.ts";
import type { CommandNode, GroupNode } from "../command-spec.ts";

/** Every command path ("" is the root) and the words completed after it. */
export function completionTable(root: GroupNode): Map<string, string[]> {
  const table = new Map<string, string[]>();
  const walk = (node: CommandNode, path: string) => {
    if (node.kind !== "group") {
      table.set(
        path,
        node.flags.filter((f) => !f.hidden).map((f) => `--${f.name}`),
      );
    } else {
      table.set(
        path,
        node.children.map((c) => c.name),
      );
      for (const child of node.children) walk(child, path ? `${path} ${child.name}` : child.name);
    }
  };
  walk(root, "");
  return table;
}

const globalWords = "--api --registry --output -o --help";

/** A bash completion script (zsh loads it through bashcompinit). */
export function bashScript(root: GroupNode): string {
  const table = completionTable(root);
  const paths = [...table.keys()].filter((p) => p !== "");
  const cases = [...table.entries()]
    .map(([path, words]) => `    "${path}") words="${words.join(" ")}" ;;`)
    .join("\n");
  return `# lading bash completion: source <(lading completion bash)
_lading() {
  local cur prev path candidate words i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  case "$prev" in
    -o|--output) COMPREPLY=($(compgen -W "table json id" -- "$cur")); return ;;
  esac
  path=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    candidate="\${path:+$path }\${COMP_WORDS[i]}"
    case "$candidate" in
      ${paths.map((p) => `"${p}"`).join("|")}) path="$candidate" ;;
    esac
  done
  case "$path" in
${cases}
    *) words="" ;;
  esac
  COMPREPLY=($(compgen -W "$words ${globalWords}" -- "$cur"))
}
complete -o default -F _lading lading
`;
}

/** A zsh completion script (bash completion through bashcompinit). */
export function zshScript(root: GroupNode): string {
  return `# lading zsh completion: source <(lading completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashScript(root).split("\n").slice(1).join("\n")}`;
}

/** A fish completion script. */
export function fishScript(root: GroupNode): string {
  const table = completionTable(root);
  const paths = [...table.keys()].filter((p) => p !== "");
  const lines = [
    "# lading fish completion: lading completion fish | source",
    "function __lading_path",
    "  set -l path ''",
    "  for word in (commandline -opc)[2..-1]",
    '    set -l candidate (string trim -- "$path $word")',
    `    if contains -- $candidate ${paths.map((p) => `'${p}'`).join(" ")}`,
    "      set path $candidate",
    "    end",
    "  end",
    "  echo $path",
    "end",
    "complete -c lading -f",
    "complete -c lading -l api -r -d 'Lading API URL'",
    "complete -c lading -l registry -r -d 'registry URL'",
    "complete -c lading -s o -l output -x -a 'table json id' -d 'output format'",
  ];
  for (const [path, words] of table) {
    const condition = `test (__lading_path) = '${path}'`;
    const plain = words.filter((w) => !w.startsWith("-"));
    const flags = words.filter((w) => w.startsWith("--")).map((w) => w.slice(2));
    if (plain.length) lines.push(`complete -c lading -n "${condition}" -a '${plain.join(" ")}'`);
    for (const flag of flags) lines.push(`complete -c lading -n "${condition}" -l ${flag}`);
  }
  return `${lines.join("\n")}\n`;
}

/** `lading completion bash|zsh|fish`. */
export function completionCommands(root: () => GroupNode): GroupNode {
  const shells = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;
  return {
    kind: "group",
    name: "completion",
    summary: "Print a shell completion script (bash, zsh or fish)",
    children: (Object.keys(shells) as (keyof typeof shells)[]).map((shell) => ({
      kind: "verb",
      name: shell,
      summary: `The ${shell} completion script`,
      flags: [],
      examples: [
        shell === "fish"
          ? "lading completion fish | source"
          : `source <(lading completion ${shell})`,
      ],
      async run(ctx) {
        if (!(shell in shells)) throw new UsageError(`unknown shell ${shell}`);
        ctx.stdout.write(shells[shell](root()));
        return 0;
      },
    })),
  };
}
