import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type CliRunner, cliRunner } from "./cli-support.ts";

const levels = "trace, debug, info, warn, error, fatal, silent";

describe("lading CLI: flags say what they accept, the same in help and errors", () => {
  let cli: CliRunner;
  before(async () => {
    cli = await cliRunner();
  });
  after(() => cli.cleanup());
  const inHome = { cwd: "" };
  before(() => {
    inHome.cwd = cli.home;
  });

  it("--log-level names the accepted levels instead of pino's error", async () => {
    const flag = await cli.run(["serve", "--log-level", "verbose"], {}, inHome);
    assert.equal(flag.code, 2);
    assert.equal(flag.stderr, `lading: --log-level must be one of ${levels}, got "verbose"\n`);
    assert.doesNotMatch(flag.stderr, /custom levels/);
    const env = await cli.run(["admin", "migrate"], { LADING_LOG_LEVEL: "loud" }, inHome);
    assert.equal(env.code, 2);
    assert.equal(env.stderr, `lading: LADING_LOG_LEVEL must be one of ${levels}, got "loud"\n`);
    const help = await cli.run(["serve", "--help"]);
    assert.match(
      help.stdout,
      new RegExp(`--log-level LEVEL\\s+one of ${levels} \\(default info\\)`),
    );
  });

  it("-o: the error names the formats --help names", async () => {
    const bad = await cli.run(["iam", "groups", "list", "-o", "yaml"]);
    assert.equal(bad.code, 2);
    const named = /must be (.+), got "yaml"\n$/.exec(bad.stderr)?.[1];
    assert.ok(named, bad.stderr);
    const help = await cli.run(["iam", "groups", "list", "--help"]);
    const helped = /-o, --output FORMAT\s+(.+)\n/.exec(help.stdout)?.[1];
    assert.equal(helped, named);
    assert.equal(named, "table, json or id (env: auth pull-token only)");
    const config = await cli.run(["config", "set", "output", "yaml"]);
    assert.equal(config.code, 2);
    assert.match(config.stderr, /output must be table, json or id \(env: auth pull-token only\)/);
  });

  it("admin token --help lists its own flags, not every serve flag", async () => {
    const help = await cli.run(["admin", "token", "--help"]);
    assert.equal(help.code, 0);
    const flags = [...help.stdout.matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1]);
    assert.deepEqual(flags, [
      ...["--identity", "--audience", "--ttl", "--config", "--data-dir", "--database-url"],
      ...["--api-listen", "--api-url", "--tls-cert", "--tls-key"],
    ]);
    assert.match(help.stdout, /the other `lading serve` flags are accepted and ignored/);
    const migrate = await cli.run(["admin", "migrate", "--help"]);
    assert.doesNotMatch(migrate.stdout, /--log-level|--scan-images|--events-|--api-url/);
    const serve = await cli.run(["serve", "--help"]);
    for (const flag of ["--log-level", "--scan-images", "--events-retention", "--api-url"]) {
      assert.ok(serve.stdout.includes(flag), flag);
    }
    // serve's command line still works for admin commands (flags it does not read are ignored).
    const migrated = await cli.run(
      ["admin", "migrate", "--data-dir", `${cli.home}/data`, "--log-level", "warn"],
      {},
      inHome,
    );
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.ok(JSON.parse(migrated.stdout).applied.length > 0);
  });
});
