import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { buildImage, writeLayout } from "../support/oci-layout.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";
import { runNode } from "./cli-support.ts";

const run = promisify(execFile);
const repo = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const cli = join(repo, "bin/lading.js");
const helper = join(repo, "bin/docker-credential-lading.js");

async function skopeo(env: NodeJS.ProcessEnv, ...args: string[]): Promise<string> {
  try {
    return (await run("skopeo", args, { encoding: "utf8", env })).stdout;
  } catch (error) {
    const e = error as { stderr?: string };
    throw new Error(`skopeo ${args[0]} failed: ${e.stderr ?? String(error)}`);
  }
}

const claims = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1], "base64url").toString("utf8"));

for (const pair of registryPairs) {
  describe(`docker-credential-lading [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let home: string;
    let env: NodeJS.ProcessEnv;
    before(async () => {
      r = await startRegistryServer(pair);
      home = await mkdtemp(join(tmpdir(), "lading-helper-"));
      const bin = join(home, "bin");
      await mkdir(bin);
      await symlink(helper, join(bin, "docker-credential-lading"));
      await mkdir(join(home, "run"), { mode: 0o700 });
      env = {
        // The system Node before the bundled one, when there is one: skopeo runs the helper
        // with whatever `node` PATH finds, as it would on a user's machine.
        PATH: [bin, "/usr/bin", "/bin", join(repo, "node_modules/.bin"), process.env.PATH].join(
          ":",
        ),
        HOME: home,
        XDG_CONFIG_HOME: join(home, ".config"),
        XDG_RUNTIME_DIR: join(home, "run"),
        LADING_API_URL: r.server.apiUrl,
        LADING_REGISTRY_URL: r.registryUrl,
        LADING_NO_BROWSER: "1",
      };
    });
    after(async () => {
      await r?.close();
      if (home) await rm(home, { recursive: true, force: true });
    });

    it("gets a registry token re-minted from LADING_TOKEN for the registry host", async () => {
      const withToken = { ...env, LADING_TOKEN: r.server.org.token };
      for (const server of [r.host, `https://${r.host}`, `${r.host}/v2/`]) {
        const got = await runNode(helper, ["get"], withToken, { stdin: `${server}\n` });
        assert.equal(got.code, 0, got.stdout + got.stderr);
        const answer = JSON.parse(got.stdout);
        assert.equal(answer.ServerURL, server);
        assert.equal(answer.Username, "_token");
        assert.equal(claims(answer.Secret).aud, r.host);
        assert.equal(claims(answer.Secret).sub, r.server.org.identityUid);
      }
      const other = await runNode(helper, ["get"], withToken, { stdin: "registry.example.com" });
      assert.equal(other.code, 1);
      assert.equal(other.stdout.trim(), "credentials not found in native keychain");
    });

    it("answers not found when nobody is signed in, and an error when the token is refused", async () => {
      const anonymous = await runNode(helper, ["get"], env, { stdin: r.host });
      assert.equal(anonymous.code, 1);
      assert.equal(anonymous.stdout.trim(), "credentials not found in native keychain");
      // Anonymous is not an error: nothing on stderr, which clients show the user.
      assert.equal(anonymous.stderr, "");

      const stranger = await r.server.token("0".repeat(40));
      const refused = await runNode(
        helper,
        ["get"],
        { ...env, LADING_TOKEN: stranger },
        { stdin: r.host },
      );
      assert.equal(refused.code, 1);
      assert.match(
        refused.stdout,
        new RegExp(`LADING_TOKEN cannot be exchanged for audience ${r.host}: `),
      );
    });

    it("stores, lists and erases saved credentials, which win over the session", async () => {
      const withToken = { ...env, LADING_TOKEN: r.server.org.token };
      const saved = { ServerURL: `https://${r.host}`, Username: "someone", Secret: "s3cret" };
      const stored = await runNode(helper, ["store"], env, { stdin: JSON.stringify(saved) });
      assert.equal(stored.code, 0, stored.stdout);
      const mode = (await stat(join(home, ".config/lading/credentials.json"))).mode & 0o777;
      assert.equal(mode, 0o600);
      const listed = await runNode(helper, ["list"], withToken);
      assert.deepEqual(JSON.parse(listed.stdout), { [r.host]: "someone" });
      const got = JSON.parse((await runNode(helper, ["get"], withToken, { stdin: r.host })).stdout);
      assert.deepEqual(got, { ServerURL: r.host, Username: "someone", Secret: "s3cret" });

      assert.equal((await runNode(helper, ["erase"], env, { stdin: `https://${r.host}` })).code, 0);
      assert.deepEqual(JSON.parse((await runNode(helper, ["list"], env)).stdout), {});
      assert.deepEqual(JSON.parse((await runNode(helper, ["list"], withToken)).stdout), {
        [r.host]: "_token",
      });
      assert.equal(
        JSON.parse((await runNode(helper, ["get"], withToken, { stdin: r.host })).stdout).Username,
        "_token",
      );
      assert.equal((await runNode(helper, ["bogus"], env)).code, 2);
    });

    it("configure-docker adds credHelpers to the Docker config and an auth file, keeping other keys", async () => {
      const dockerDir = join(home, "docker");
      await mkdir(dockerDir);
      await writeFile(
        join(dockerDir, "config.json"),
        JSON.stringify({
          auths: { "other.example": { auth: "eDp5" } },
          credHelpers: { "gcr.io": "gcloud" },
        }),
        { mode: 0o644 },
      );
      const authfile = join(home, "containers-auth.json");
      const configured = await runNode(cli, ["auth", "configure-docker", "--authfile", authfile], {
        ...env,
        DOCKER_CONFIG: dockerDir,
      });
      assert.equal(configured.code, 0, configured.stderr);
      assert.match(configured.stdout, /Configured .*docker\/config\.json/);
      assert.doesNotMatch(configured.stderr, /not on PATH/);
      const docker = JSON.parse(await readFile(join(dockerDir, "config.json"), "utf8"));
      assert.deepEqual(docker, {
        auths: { "other.example": { auth: "eDp5" } },
        credHelpers: { "gcr.io": "gcloud", [r.host]: "lading" },
      });
      assert.equal((await stat(join(dockerDir, "config.json"))).mode & 0o777, 0o644);
      assert.deepEqual(JSON.parse(await readFile(authfile, "utf8")), {
        credHelpers: { [r.host]: "lading" },
      });
      const again = await runNode(cli, ["auth", "configure-docker"], {
        ...env,
        DOCKER_CONFIG: dockerDir,
      });
      assert.match(again.stdout, /Already configured/);
    });

    it("lets skopeo push and pull through credHelpers (explicit auth file and Docker config)", async () => {
      const authfile = join(home, "auth.json");
      await writeFile(authfile, JSON.stringify({ credHelpers: { [r.host]: "lading" } }));
      const withToken = { ...env, LADING_TOKEN: r.server.org.token };
      const image = buildImage("pushed through the credential helper");
      const ref = `docker://${r.host}/acme/helper:v1`;
      await skopeo(
        withToken,
        "copy",
        "--authfile",
        authfile,
        "--dest-tls-verify=false",
        `oci:${writeLayout("v1", [image])}:v1`,
        ref,
      );
      const out = writeLayout("unused", [image]);
      await skopeo(
        withToken,
        "copy",
        "--authfile",
        authfile,
        "--src-tls-verify=false",
        ref,
        `oci:${out}:pulled`,
      );
      const index = JSON.parse(await readFile(join(out, "index.json"), "utf8"));
      assert.ok(
        index.manifests.some((m: { digest: string }) => m.digest === image.descriptor.digest),
      );

      await assert.rejects(
        skopeo(env, "inspect", "--authfile", authfile, "--tls-verify=false", ref),
        /unauthorized|authentication required|denied/i,
      );

      // Anonymous pulls of a public repository through the helper: no helper noise.
      const publicRef = `docker://${r.host}/public/hello:latest`;
      await skopeo(
        { ...env, LADING_TOKEN: r.server.org.token },
        "copy",
        "--dest-creds",
        `_token:${r.publicOrg.token}`,
        "--dest-tls-verify=false",
        `oci:${writeLayout("pub", [image])}:pub`,
        publicRef,
      );
      const anonymous = await run(
        "skopeo",
        ["inspect", "--authfile", authfile, "--tls-verify=false", publicRef],
        { encoding: "utf8", env },
      ).catch((error: { stderr?: string }) => {
        throw new Error(`anonymous skopeo inspect failed: ${error.stderr ?? String(error)}`);
      });
      assert.equal(JSON.parse(anonymous.stdout).Digest, image.descriptor.digest);
      assert.doesNotMatch(anonymous.stderr, /docker-credential-lading|not signed in/);
      const pulled = await run(
        "skopeo",
        [
          ...["copy", "--authfile", authfile, "--src-tls-verify=false"],
          ...[publicRef, `oci:${writeLayout("pub-out", [image])}:got`],
        ],
        { encoding: "utf8", env },
      );
      assert.doesNotMatch(pulled.stderr, /docker-credential-lading|not signed in/);

      const dockerDir = join(home, "docker-only");
      const configured = await runNode(cli, ["auth", "configure-docker"], {
        ...env,
        DOCKER_CONFIG: dockerDir,
      });
      assert.equal(configured.code, 0, configured.stderr);
      const inspected = JSON.parse(
        await skopeo(
          { ...withToken, DOCKER_CONFIG: dockerDir },
          "inspect",
          "--tls-verify=false",
          ref,
        ),
      );
      assert.equal(inspected.Digest, image.descriptor.digest);
    });
  });
}
