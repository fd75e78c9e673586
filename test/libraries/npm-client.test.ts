import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { npm } from "../support/npm-packages.ts";
import { createPullToken } from "../support/pull-token.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";

const run = promisify(execFile);

/** What the installed `modules` export, space-separated, as Node in `project` requires them. */
async function requireIn(project: string, modules: string[]): Promise<string> {
  const script = `console.log(${modules.map((m) => `require(${JSON.stringify(m)})`).join(", ")})`;
  const { stdout } = await run(process.execPath, ["-e", script], { cwd: project });
  return stdout.trim();
}
/** The built-in role `libraries.javascript.pull`. */
const javascriptPull = "820859d8194d020efa7aa5b1936e40fcf8195fe3";

/** The real npm CLI (system npm on the system Node) against Lading's npm registry. */
for (const pair of registryPairs) {
  describe(`npm client [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let dir: string;
    let npmrc: string;
    const registry = (org: string) => `${r.registryUrl}/javascript/${org}/`;

    /** A package folder with package.json and index.js. */
    async function packageDir(name: string, version: string, extra: Record<string, unknown> = {}) {
      const at = join(dir, `${name.replace("/", "+")}-${version}`);
      await mkdir(at, { recursive: true });
      await writeFile(
        join(at, "package.json"),
        JSON.stringify({
          name,
          version,
          description: `${name} for tests`,
          main: "index.js",
          ...extra,
        }),
      );
      await writeFile(
        join(at, "index.js"),
        `module.exports = ${JSON.stringify(`${name}@${version}`)};\n`,
      );
      return at;
    }

    /** A new project folder with `specs` installed by npm with `rc`. */
    async function installInto(name: string, rc: string, specs: string[]): Promise<string> {
      const project = join(dir, name);
      await mkdir(project);
      await writeFile(join(project, "package.json"), JSON.stringify({ name, version: "0.0.0" }));
      await npm(project, rc, ["install", ...specs]);
      return project;
    }

    before(async () => {
      r = await startRegistryServer(pair);
      dir = await mkdtemp(join(tmpdir(), "lading-npm-"));
      npmrc = join(dir, "acme.npmrc");
      const nerf = registry("acme").replace(/^http:/, "");
      await writeFile(npmrc, `registry=${registry("acme")}\n${nerf}:_authToken=${r.ownerToken}\n`);
    });
    after(async () => {
      await r?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("publishes an unscoped and a scoped package and installs both, one depending on the other", async () => {
      await npm(await packageDir("hello-lading", "1.0.0"), npmrc, ["publish"]);
      await npm(await packageDir("hello-lading", "1.1.0"), npmrc, ["publish"]);
      await npm(
        await packageDir("@acme/greet", "2.0.0", { dependencies: { "hello-lading": "^1.0.0" } }),
        npmrc,
        ["publish", "--access", "public"],
      );
      const project = await installInto("project", npmrc, ["@acme/greet@2.0.0"]);
      assert.equal(
        await requireIn(project, ["@acme/greet", "hello-lading"]),
        "@acme/greet@2.0.0 hello-lading@1.1.0",
      );
      const view = JSON.parse((await npm(dir, npmrc, ["view", "hello-lading", "--json"])).stdout);
      assert.deepEqual(view.versions, ["1.0.0", "1.1.0"]);
      assert.equal(view["dist-tags"].latest, "1.1.0");
      assert.equal(view.description, "hello-lading for tests");
      assert.match(
        view.dist.tarball,
        /\/javascript\/acme\/hello-lading\/-\/hello-lading-1\.1\.0\.tgz$/,
      );
      const scoped = JSON.parse((await npm(dir, npmrc, ["view", "@acme/greet", "--json"])).stdout);
      assert.deepEqual(scoped.dependencies, { "hello-lading": "^1.0.0" });
      assert.match(scoped.dist.tarball, /\/javascript\/acme\/@acme\/greet\/-\/greet-2\.0\.0\.tgz$/);
    });

    it("adds, lists and removes dist-tags, and refuses to remove latest", async () => {
      await npm(dir, npmrc, ["dist-tag", "add", "hello-lading@1.0.0", "stable"]);
      const listed = (await npm(dir, npmrc, ["dist-tag", "ls", "hello-lading"])).stdout;
      assert.match(listed, /^latest: 1\.1\.0$/m);
      assert.match(listed, /^stable: 1\.0\.0$/m);
      const project = await installInto("tagged", npmrc, ["hello-lading@stable"]);
      assert.equal(await requireIn(project, ["hello-lading"]), "hello-lading@1.0.0");
      await npm(dir, npmrc, ["dist-tag", "rm", "hello-lading", "stable"]);
      const after = (await npm(dir, npmrc, ["dist-tag", "ls", "hello-lading"])).stdout;
      assert.doesNotMatch(after, /stable/);
      await assert.rejects(
        npm(dir, npmrc, ["dist-tag", "rm", "hello-lading", "latest"]),
        /400|latest/,
      );
      await assert.rejects(
        npm(dir, npmrc, ["dist-tag", "add", "hello-lading@9.9.9", "nope"]),
        /404|not published/,
      );
    });

    it("deprecates and undeprecates versions with npm deprecate, each change an event", async () => {
      const abbreviated = async () => {
        const res = await fetch(`${registry("acme")}hello-lading`, {
          headers: {
            authorization: `Bearer ${r.ownerToken}`,
            accept: "application/vnd.npm.install-v1+json",
          },
        });
        const doc = (await res.json()) as { versions: Record<string, { deprecated?: string }> };
        return Object.fromEntries(
          Object.entries(doc.versions).map(([v, m]) => [v, m.deprecated ?? null]),
        );
      };
      const deprecatedIn = async (version: string) => {
        const out = await npm(dir, npmrc, ["view", `hello-lading@${version}`, "deprecated"]);
        return out.stdout.trim();
      };
      const events = async () =>
        (
          await r.server.lading.store.db
            .selectFrom("events")
            .select(["type", "data"])
            .where("type", "like", "dev.lading.libraries.%deprecated.v1")
            .orderBy("seq")
            .execute()
        ).map((e) => {
          const { body } = JSON.parse(e.data) as { body: { version: string; message: string } };
          return [e.type.split(".")[3], body.version, body.message];
        });

      await npm(dir, npmrc, ["deprecate", "hello-lading@1.0.0", "use 1.1.0 or later"]);
      assert.equal(await deprecatedIn("1.0.0"), "use 1.1.0 or later");
      assert.equal(await deprecatedIn("1.1.0"), "");
      assert.deepEqual(await abbreviated(), { "1.0.0": "use 1.1.0 or later", "1.1.0": null });
      const project = await installInto("deprecated", npmrc, ["hello-lading@1.0.0"]);
      assert.equal(await requireIn(project, ["hello-lading"]), "hello-lading@1.0.0");
      const warned = await npm(project, npmrc, ["install", "hello-lading@1.0.0"]);
      // A fresh install of the deprecated version: npm warns with the message.
      await npm(project, npmrc, ["uninstall", "hello-lading"]);
      const again = await npm(project, npmrc, ["install", "hello-lading@1.0.0"]);
      assert.match(
        `${warned.stderr}${again.stderr}`,
        /deprecated hello-lading@1\.0\.0: use 1\.1\.0 or later/,
      );

      // A range deprecates every version in it; a version already so is left as it is.
      await npm(dir, npmrc, ["deprecate", "hello-lading@<2", "the 1.x line is over"]);
      assert.deepEqual(await abbreviated(), {
        "1.0.0": "the 1.x line is over",
        "1.1.0": "the 1.x line is over",
      });
      await npm(dir, npmrc, ["deprecate", "hello-lading@1.1.0", ""]);
      assert.equal(await deprecatedIn("1.1.0"), "");
      assert.equal(await deprecatedIn("1.0.0"), "the 1.x line is over");
      await npm(dir, npmrc, ["deprecate", "hello-lading@1.0.0", ""]);
      assert.deepEqual(await abbreviated(), { "1.0.0": null, "1.1.0": null });
      assert.deepEqual(await events(), [
        ["deprecated", "1.0.0", "use 1.1.0 or later"],
        ["deprecated", "1.0.0", "the 1.x line is over"],
        ["deprecated", "1.1.0", "the 1.x line is over"],
        ["undeprecated", "1.1.0", ""],
        ["undeprecated", "1.0.0", ""],
      ]);
      // Nothing to change: no event, and the packument keeps its stamp.
      await npm(dir, npmrc, ["deprecate", "hello-lading@1.0.0", ""]);
      assert.equal((await events()).length, 5);
    });

    it("refuses to publish a version again with 409", async () => {
      const again = await packageDir("hello-lading", "1.0.0", { description: "changed" });
      await assert.rejects(npm(again, npmrc, ["publish"]), /E409|previously published/);
      const view = JSON.parse(
        (await npm(dir, npmrc, ["view", "hello-lading@1.0.0", "--json"])).stdout,
      );
      assert.equal(view.description, "hello-lading for tests");
    });

    it("answers npm whoami and npm ping", async () => {
      const who = (await npm(dir, npmrc, ["whoami"])).stdout.trim();
      assert.equal(who, r.server.org.identityUid);
      await npm(dir, npmrc, ["ping"]);
    });

    it("installs with a pull token as _auth, which cannot publish", async () => {
      const identity = await createPullToken(r, javascriptPull);
      const jwt = identity.jwt;
      const pullRc = join(dir, "pull.npmrc");
      const auth = Buffer.from(`${identity.uid}:${jwt}`).toString("base64");
      const nerf = registry("acme").replace(/^http:/, "");
      await writeFile(pullRc, `registry=${registry("acme")}\n${nerf}:_auth=${auth}\n`);
      const project = await installInto("pulled", pullRc, ["hello-lading@1.0.0"]);
      assert.equal(await requireIn(project, ["hello-lading"]), "hello-lading@1.0.0");
      await assert.rejects(
        npm(await packageDir("hello-lading", "3.0.0"), pullRc, ["publish"]),
        /E403|libraries\.javascript\.create/,
      );
      await assert.rejects(
        npm(dir, pullRc, ["deprecate", "hello-lading@1.0.0", "not yours to say"]),
        /E403|libraries\.javascript\.create/,
      );
      const view = await npm(dir, pullRc, ["view", "hello-lading@1.0.0", "deprecated"]);
      assert.equal(view.stdout.trim(), "");
    });

    it("installs from the public organisation without credentials, and not from acme", async () => {
      const publicRc = join(dir, "public.npmrc");
      const nerf = registry("public").replace(/^http:/, "");
      await writeFile(
        publicRc,
        `registry=${registry("public")}\n${nerf}:_authToken=${r.publicOrg.token}\n`,
      );
      await npm(await packageDir("open-lading", "0.1.0"), publicRc, ["publish"]);
      const anonymousRc = join(dir, "anonymous.npmrc");
      await writeFile(anonymousRc, `registry=${registry("public")}\n`);
      const project = await installInto("anonymous", anonymousRc, ["open-lading"]);
      assert.equal(await requireIn(project, ["open-lading"]), "open-lading@0.1.0");
      const acmeAnonymous = join(dir, "acme-anonymous.npmrc");
      await writeFile(acmeAnonymous, `registry=${registry("acme")}\n`);
      await assert.rejects(npm(project, acmeAnonymous, ["install", "hello-lading"]), /E401|401/);
    });
  });
}
