import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { type CliRunner, cliRunner } from "./cli-support.ts";

const exec = promisify(execFile);

describe("lading config, completion and help (CLI process)", () => {
  let cli: CliRunner;
  before(async () => {
    cli = await cliRunner();
  });
  after(() => cli.cleanup());

  const effective = async (args: string[] = [], env: Record<string, string | undefined> = {}) => {
    const result = await cli.run(["config", "list", "-o", "json", ...args], env);
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout).effective;
  };

  it("stores config in $XDG_CONFIG_HOME/lading and resolves flag > env > file > default", {
    timeout: 300_000,
  }, async () => {
    assert.deepEqual(await effective(), {
      api: "http://127.0.0.1:8080",
      registry: "http://127.0.0.1:5000",
      output: "json",
    });
    await cli.ok("config", "set", "api", "https://file.example/");
    await cli.ok("config", "set", "registry", "https://registry.file.example");
    await cli.ok("config", "set", "identity-provider", "idp-uid");
    const dir = join(cli.home, ".config", "lading");
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    assert.deepEqual(JSON.parse(await readFile(join(dir, "config.json"), "utf8")), {
      api: "https://file.example",
      registry: "https://registry.file.example",
      identityProvider: "idp-uid",
    });
    assert.equal(await cli.ok("config", "get", "api"), "https://file.example\n");
    assert.equal(await cli.ok("config", "get", "output"), "");
    assert.equal((await effective()).api, "https://file.example");
    const env = {
      LADING_API_URL: "https://env.example",
      LADING_REGISTRY_URL: "https://r.env.example",
    };
    assert.deepEqual(await effective([], env), {
      api: "https://env.example",
      registry: "https://r.env.example",
      output: "json",
    });
    const flags = ["--api", "https://flag.example", "--registry=https://r.flag.example"];
    assert.deepEqual(await effective(flags, env), {
      api: "https://flag.example",
      registry: "https://r.flag.example",
      output: "json",
    });
    await cli.ok("config", "set", "output", "id");
    assert.match(await cli.ok("config", "list"), /^api=https:\/\/file\.example\n/);
    await cli.ok("config", "unset", "output");
    await cli.ok("config", "unset", "api");
    assert.equal((await effective()).api, "http://127.0.0.1:8080");
    for (const args of [
      ["config", "set", "output", "yaml"],
      ["config", "set", "api", "ftp://x"],
      ["config", "get", "colour"],
      ["config", "set", "api"],
    ]) {
      assert.equal((await cli.run(args)).code, 2, args.join(" "));
    }
    await writeFile(join(dir, "config.json"), '{"output": "yaml", "api": "https://hand.example"}');
    const warned = await cli.run(["config", "list"]);
    assert.equal(warned.code, 0);
    assert.match(warned.stderr, /^lading: warning: ignoring output "yaml" in config\.json/);
    assert.match(warned.stdout, /^api=https:\/\/hand\.example\n/);
    await cli.ok("config", "unset", "output");
    const notSignedIn = await cli.run(["iam", "groups", "list"]);
    assert.equal(notSignedIn.code, 1);
    assert.match(notSignedIn.stderr, /not signed in/);
    await writeFile(join(dir, "config.json"), "{not json");
    const broken = await cli.run(["config", "list"]);
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /config\.json is not valid JSON/);
    assert.equal((await cli.run(["config", "list", "--help"])).code, 0);
    await writeFile(join(dir, "config.json"), "{}");
  });

  it("prints completion scripts from the command table; bash and zsh parse", async () => {
    const bash = await cli.ok("completion", "bash");
    await writeFile(join(cli.home, "c.bash"), bash);
    await exec("bash", ["-n", join(cli.home, "c.bash")]);
    assert.match(bash, /"iam identities create"\) words="--parent --name --description --issuer/);
    assert.match(bash, /"images"\) words="repos tags tag-policies history restore diff vex"/);
    assert.match(bash, /"storage gc"\) words="list get run"/);
    assert.match(bash, /"storage gc run"\) words="--dry-run --wait/);
    assert.match(
      bash,
      /"auth"\) words="login logout status token configure-docker pull-token configure-pip configure-npm configure-maven"/,
    );
    const { stdout } = await exec("bash", [
      "-c",
      `source ${join(cli.home, "c.bash")}; COMP_WORDS=(lading iam role-bindings cr); COMP_CWORD=3; _lading; echo "\${COMPREPLY[@]}"`,
    ]);
    assert.equal(stdout.trim(), "create");
    const zsh = await cli.ok("completion", "zsh");
    assert.match(zsh, /bashcompinit/);
    await writeFile(join(cli.home, "c.zsh"), zsh);
    await exec("bash", ["-n", join(cli.home, "c.zsh")]);
    const fish = await cli.ok("completion", "fish");
    assert.match(
      fish,
      /complete -c lading -n "test \(__lading_path\) = 'iam groups'" -a 'list get create update delete'/,
    );
    assert.equal((await cli.run(["completion", "tcsh"])).code, 2);
  });

  it("prints help for every level and rejects unknown commands with exit 2", async () => {
    const top = await cli.ok("--help");
    for (const word of ["auth", "iam", "images", "config", "completion", "serve", "admin"]) {
      assert.match(top, new RegExp(`^ {2}${word}\\s`, "m"));
    }
    assert.match(await cli.ok("iam", "--help"), /^ {2}identity-providers\s/m);
    const identities = await cli.ok("help", "iam", "identities");
    assert.match(identities, /^ {2}list\s/m);
    assert.match(identities, /^ {2}delete\s/m);
    const create = await cli.ok("iam", "identities", "create", "-h");
    assert.match(create, /--static-keys-file FILE/);
    assert.match(create, /--parent GROUP\s+the group \(uid or name\) to create it in \(required\)/);
    const bare = await cli.run([]);
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /usage: lading <command>/);
    const unknown = await cli.run(["frobnicate"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command "frobnicate"/);
  });
});
