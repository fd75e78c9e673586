import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import type { CommandNode } from "./command-spec.ts";
import { commandTable } from "./command-table.ts";
import { main } from "./main.ts";

/** Runs main in this process with captured output. */
async function lading(
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const stream = (append: (text: string) => void) =>
    ({
      write(chunk: string | Uint8Array) {
        append(String(chunk));
        return true;
      },
    }) as NodeJS.WritableStream;
  const code = await main(args, {
    stdout: stream((t) => {
      stdout += t;
    }),
    stderr: stream((t) => {
      stderr += t;
    }),
  });
  return { code, stdout, stderr };
}

/** Every command path in the table, the root first. */
function paths(node: CommandNode, path: string[] = []): { node: CommandNode; path: string[] }[] {
  const below = node.kind === "group" ? node.children : [];
  return [{ node, path }, ...below.flatMap((c) => paths(c, [...path, c.name]))];
}

/** The flag name with its last two letters swapped: one edit away, as typos are. */
function typo(name: string): string {
  return `${name.slice(0, -2)}${name.at(-1)}${name.at(-2)}`;
}

describe("every command in the table", () => {
  for (const { node, path } of paths(commandTable)) {
    const words = ["lading", ...path].join(" ");
    it(`${words}: --help and -h print its usage and exit 0; unknown flags get a suggestion and exit 2`, async () => {
      const usage = new RegExp(`^usage: ${words}( |$)`, "m");
      for (const flag of ["--help", "-h"]) {
        const help = await lading(...path, flag);
        assert.equal(help.code, 0, `${words} ${flag}: ${help.stderr}`);
        assert.match(help.stdout, usage);
        assert.equal(help.stderr, "");
      }
      const misspelt = await lading(...path, "--hlep");
      assert.equal(misspelt.code, 2);
      assert.equal(
        misspelt.stderr,
        `lading: unknown flag --hlep for ${words}: did you mean --help? (see ${words} --help)\n`,
      );
      const flag =
        node.kind === "group" ? undefined : node.flags.find((f) => typo(f.name) !== f.name);
      if (flag) {
        const wrong = await lading(...path, `--${typo(flag.name)}`);
        assert.equal(wrong.code, 2);
        assert.match(
          wrong.stderr,
          new RegExp(`did you mean --${flag.name}\\? \\(see ${words} --help\\)\\n$`),
        );
        assert.equal(wrong.stderr.split("\n").length, 2, wrong.stderr);
      }
    });
  }
});

it("prints the version from package.json for --version, -V and version", async () => {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  for (const args of [["--version"], ["-V"], ["version"], ["-o", "json", "--version"]]) {
    assert.deepEqual(await lading(...args), {
      code: 0,
      stdout: `lading ${pkg.version}\n`,
      stderr: "",
    });
  }
});

it("suggests the command meant by an unknown command word", async () => {
  const wrong = await lading("iam", "grups", "list");
  assert.equal(wrong.code, 2);
  assert.equal(
    wrong.stderr,
    'lading: unknown command "grups" for lading iam: did you mean groups? (see lading iam --help)\n',
  );
});
