import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { builtInRoleUid } from "../../src/auth/index.ts";
import { addIdentityProvider, browserSignIn, postForm } from "../support/browser-sign-in.ts";
import { ociClient } from "../support/oci-client.ts";
import { buildImage, writeLayout } from "../support/oci-layout.ts";
import { browserClients, startBrowserProvider } from "../support/oidc-provider.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";
import { type CliRun, runNode } from "./cli-support.ts";

const run = promisify(execFile);
const repo = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const cli = join(repo, "bin/lading.js");
const helper = join(repo, "bin/docker-credential-lading.js");

const claims = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1], "base64url").toString("utf8"));

const skopeo = (...args: string[]) => skopeoWith({ PATH: process.env.PATH }, ...args);

async function skopeoWith(env: NodeJS.ProcessEnv, ...args: string[]): Promise<string> {
  try {
    return (await run("skopeo", args, { encoding: "utf8", env })).stdout;
  } catch (error) {
    const e = error as { stderr?: string };
    throw new Error(`skopeo ${args[0]} failed: ${e.stderr ?? String(error)}`);
  }
}

for (const pair of registryPairs) {
  describe(`lading auth [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let provider: Awaited<ReturnType<typeof startBrowserProvider>>;
    let idp: string;
    let home: string;
    let env: NodeJS.ProcessEnv;
    let credentialsFile: string;

    /** Runs the CLI; `onStderr` sees stderr as it arrives. */
    const lading = (
      args: string[],
      extra: NodeJS.ProcessEnv = {},
      onStderr?: (text: string) => void,
    ) => runNode(cli, args, { ...env, ...extra }, { onStderr });
    const ok = async (args: string[], extra: NodeJS.ProcessEnv = {}) => {
      const ran = await lading(args, extra);
      assert.equal(ran.code, 0, `lading ${args.join(" ")}: ${ran.stderr}`);
      return ran.stdout;
    };
    const userUid = (login: string) =>
      createHash("sha256").update(`${provider.issuer}\n${login}`).digest("hex").slice(0, 40);
    const stored = async () => JSON.parse(await readFile(credentialsFile, "utf8"));

    /** Runs `lading auth login` as `login`, playing the browser; resolves to the CLI's result. */
    async function signIn(login: string, ...flags: string[]): Promise<CliRun> {
      let announced: (url: string) => void = () => {};
      const url = new Promise<string>((resolve) => {
        announced = resolve;
      });
      const finished = lading(["auth", "login", "--no-browser", ...flags], {}, (text) => {
        const match = /Open this URL to sign in: (\S+)/.exec(text);
        if (match) announced(match[1]);
      });
      const loginUrl = await Promise.race([
        url,
        finished.then((f) => Promise.reject(new Error(f.stderr))),
      ]);
      const { location, params } = await browserSignIn(loginUrl, login);
      assert.ok(params.get("code"), location);
      const stale = new URL(location);
      stale.searchParams.set("state", "not-this-sign-in");
      assert.equal((await fetch(stale)).status, 400);
      const page = await fetch(location);
      const text = await page.text();
      assert.equal(page.status, 200, text);
      assert.match(text, /Signed in to Lading as .*You can close this tab/);
      return finished;
    }

    before(async () => {
      // The provider listens on loopback, which the operator must allow.
      r = await startRegistryServer(pair, { outboundAllow: "127.0.0.1" });
      provider = await startBrowserProvider({ redirectUri: `${r.server.apiUrl}/auth/v2/callback` });
      idp = await addIdentityProvider(
        r.server.lading.store.db,
        r.server.org.groupUid,
        provider.issuer,
        browserClients.public,
        builtInRoleUid("owner"),
      );
      home = await mkdtemp(join(tmpdir(), "lading-auth-"));
      credentialsFile = join(home, ".config/lading/credentials.json");
      env = {
        PATH: process.env.PATH,
        HOME: home,
        XDG_CONFIG_HOME: join(home, ".config"),
        LADING_API_URL: r.server.apiUrl,
        LADING_REGISTRY_URL: r.registryUrl,
        LADING_NO_BROWSER: "1",
      };
      await ociClient(r.registryUrl, r.ownerToken).pushImage(
        "acme/app",
        "latest",
        buildImage("v1"),
      );
    });
    after(async () => {
      await provider?.close();
      await r?.close();
      if (home) await rm(home, { recursive: true, force: true });
    });

    it("is not signed in at first: status exits 1 and token names both ways in", async () => {
      const status = await lading(["auth", "status"]);
      assert.equal(status.code, 1);
      assert.match(status.stderr, /not signed in/);
      const token = await lading(["auth", "token"]);
      assert.equal(token.code, 1);
      assert.match(token.stderr, /not signed in: run `lading auth login` or set LADING_TOKEN/);
      const noProvider = await lading(["auth", "login", "--no-browser"]);
      assert.equal(noProvider.code, 1);
      assert.match(noProvider.stderr, /no identity provider/);
      // The command the message names is the one `lading config set` takes.
      const named = /run `(lading config set [^`]+)`/.exec(noProvider.stderr)?.[1];
      assert.ok(named, noProvider.stderr);
      const configured = await lading([
        ...named.replace("UID", "0000000000000000000000000000000000000000").split(" ").slice(1),
      ]);
      assert.equal(configured.code, 0, configured.stderr);
      await ok(["config", "unset", "identity-provider"]);
    });

    it("fails at once, with the server's reason, for an identity provider it does not know", async () => {
      const started = Date.now();
      const unknown = await lading([
        "auth",
        "login",
        "--no-browser",
        "--identity-provider",
        `${r.server.org.groupUid}/0123456789abcdef`,
      ]);
      assert.equal(unknown.code, 1);
      assert.match(
        unknown.stderr,
        /refused the sign-in: identity_provider must name an identity provider/,
      );
      assert.ok(Date.now() - started < 20_000, "it did not wait for a browser");
    });

    it("signs in through the browser, then prints status and tokens for the API and the registry", async () => {
      const signedIn = await signIn("alice", "--identity-provider", idp);
      assert.equal(signedIn.code, 0, signedIn.stderr);
      assert.equal(signedIn.stdout, `Signed in as ${userUid("alice")}\n`);
      assert.equal((await stat(credentialsFile)).mode & 0o777, 0o600);
      const session = (await stored())[r.server.apiUrl];
      assert.equal(session.identity, userUid("alice"));
      assert.equal(session.identityProvider, idp);
      assert.match(session.refreshToken, /^lrt_/);

      const status = JSON.parse(await ok(["auth", "status", "-o", "json"]));
      assert.equal(status.identity, userUid("alice"));
      assert.equal(status.api, r.server.apiUrl);
      assert.deepEqual(
        status.tokens.map((t: { audience: string }) => t.audience),
        [r.server.apiUrl],
      );
      assert.match(await ok(["auth", "status"]), new RegExp(`Identity: +${userUid("alice")}`));

      const apiToken = (await ok(["auth", "token"])).trim();
      assert.equal(claims(apiToken).aud, r.server.apiUrl);
      assert.equal(claims(apiToken).sub, userUid("alice"));
      const registryToken = (await ok(["auth", "token", "--audience", r.host])).trim();
      assert.equal(claims(registryToken).aud, r.host);
      const history = await ociClient(r.registryUrl, registryToken).fetch(
        "/v2/acme/app/_lading/history/latest",
      );
      assert.equal(history.status, 200, await history.clone().text());
      assert.equal(((await history.json()) as { history: unknown[] }).history.length, 1);
      assert.equal((await ok(["auth", "token", "--audience", r.host])).trim(), registryToken);
      const wrong = await ociClient(r.registryUrl, apiToken).fetch(
        "/v2/acme/app/_lading/history/latest",
      );
      assert.notEqual(wrong.status, 200);
    });

    it("refreshes with a rotated refresh token; reusing a spent one revokes the session", async () => {
      const before = await stored();
      const spent = before[r.server.apiUrl].refreshToken;
      before[r.server.apiUrl].tokens = {};
      await writeFile(credentialsFile, JSON.stringify(before));
      const token = (await ok(["auth", "token", "--audience", r.host])).trim();
      assert.equal(claims(token).aud, r.host);
      const after = (await stored())[r.server.apiUrl];
      assert.notEqual(after.refreshToken, spent);
      assert.equal(after.tokens[r.host].token, token);
      const reuse = await postForm(`${r.server.apiUrl}/sts/exchange_refresh_token`, {}, spent);
      assert.equal(reuse.status, 401);
      const revoked = await lading(["auth", "token"]);
      assert.equal(revoked.code, 1);
      assert.match(revoked.stderr, /session expired or revoked .*: run `lading auth login`/);
      const again = await signIn("alice");
      assert.equal(again.code, 0, again.stderr);
    });

    it("serves the session's registry token to skopeo through docker-credential-lading", async () => {
      const bin = join(home, "bin");
      await mkdir(bin, { recursive: true });
      await symlink(helper, join(bin, "docker-credential-lading"));
      const authfile = join(home, "auth.json");
      await writeFile(authfile, JSON.stringify({ credHelpers: { [r.host]: "lading" } }));
      const skopeoEnv = {
        ...env,
        PATH: [bin, join(repo, "node_modules/.bin"), process.env.PATH].join(":"),
        XDG_RUNTIME_DIR: home,
      };
      const image = buildImage("pushed by a signed-in user");
      const ref = `docker://${r.host}/acme/session:v1`;
      await skopeoWith(
        skopeoEnv,
        "copy",
        "--authfile",
        authfile,
        "--dest-tls-verify=false",
        `oci:${writeLayout("v1", [image])}:v1`,
        ref,
      );
      const inspected = JSON.parse(
        await skopeoWith(skopeoEnv, "inspect", "--authfile", authfile, "--tls-verify=false", ref),
      );
      assert.equal(inspected.Digest, image.descriptor.digest);
    });

    it("refreshes once when several processes need a token at the same time", async () => {
      const all = await stored();
      all[r.server.apiUrl].tokens = {};
      await writeFile(credentialsFile, JSON.stringify(all));
      const tokens = await Promise.all(
        [1, 2, 3, 4].map(() => ok(["auth", "token", "--audience", r.host])),
      );
      assert.equal(new Set(tokens).size, 1);
      assert.equal(claims(tokens[0].trim()).aud, r.host);
      assert.equal(claims((await ok(["auth", "token"])).trim()).aud, r.server.apiUrl);
    });

    it("reports a sign-in the provider's answer fails, in the browser and on the terminal", async () => {
      provider.tamperIdTokens((c) => ({ ...c, nonce: "not-the-nonce" }));
      try {
        let announced: (url: string) => void = () => {};
        const url = new Promise<string>((resolve) => {
          announced = resolve;
        });
        const finished = lading(["auth", "login", "--no-browser"], {}, (text) => {
          const match = /Open this URL to sign in: (\S+)/.exec(text);
          if (match) announced(match[1]);
        });
        const { location, params } = await browserSignIn(await url, "mallory");
        assert.equal(params.get("error"), "access_denied");
        const page = await fetch(location);
        assert.equal(page.status, 400);
        assert.match(await page.text(), /Sign-in failed: /);
        const ran = await finished;
        assert.equal(ran.code, 1);
        assert.match(ran.stderr, /sign-in failed: access_denied: /);
      } finally {
        provider.tamperIdTokens(undefined);
      }
      assert.equal((await stored())[r.server.apiUrl].identity, userUid("alice"));
    });

    it("stops waiting for the browser on Ctrl-C", async () => {
      const child = spawn(process.execPath, [cli, "auth", "login", "--no-browser"], { env });
      let stderr = "";
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
      await new Promise<void>((resolve) => {
        child.stderr.on("data", (chunk) => {
          stderr += chunk;
          if (stderr.includes("Open this URL to sign in: ")) resolve();
        });
      });
      const redirect = new URL(
        new URL(/Open this URL to sign in: (\S+)/.exec(stderr)?.[1] ?? "").searchParams.get(
          "redirect_uri",
        ) ?? "",
      );
      child.kill("SIGINT");
      assert.equal(await exited, 1);
      assert.match(stderr, /sign-in interrupted/);
      await assert.rejects(fetch(redirect));
    });

    it("creates a pull token that skopeo can pull with, never push with, until it is deleted", async () => {
      const tooLong = await lading([
        "auth",
        "pull-token",
        "--parent",
        r.server.org.groupUid,
        "--ttl",
        "8761h",
      ]);
      assert.equal(tooLong.code, 2);
      assert.match(tooLong.stderr, /at most 8760h/);
      const stranger = await lading(
        ["auth", "pull-token", "--parent", r.publicOrg.groupUid, "-o", "json"],
        {
          LADING_TOKEN: await r.server.token(r.server.org.identityUid),
        },
      );
      assert.equal(stranger.code, 1);
      assert.match(stranger.stderr, /lading: /);

      const created = JSON.parse(
        await ok([
          "auth",
          "pull-token",
          "--parent",
          r.server.org.groupUid,
          "--ttl",
          "24h",
          "--name",
          "ci pull",
          "-o",
          "json",
        ]),
      );
      assert.equal(created.registry, r.host);
      assert.match(created.username, new RegExp(`^${r.server.org.groupUid}/[0-9a-f]{16}$`));
      const exp = claims(created.password).exp * 1000;
      assert.ok(Math.abs(exp - (Date.now() + 24 * 3600_000)) < 60_000);
      assert.equal(new Date(exp).toISOString(), created.expirationTime);
      const creds = ["--creds", `${created.username}:${created.password}`, "--tls-verify=false"];
      const inspected = JSON.parse(
        await skopeo("inspect", ...creds, `docker://${r.host}/acme/app:latest`),
      );
      assert.match(inspected.Digest, /^sha256:/);
      await assert.rejects(
        skopeo(
          "copy",
          "--dest-creds",
          `${created.username}:${created.password}`,
          "--dest-tls-verify=false",
          `oci:${writeLayout("v", [buildImage("pushed with a pull token")])}:v`,
          `docker://${r.host}/acme/app:pushed`,
        ),
        /denied|unauthorized|forbidden/i,
      );

      const table = await ok(["auth", "pull-token", "--parent", r.server.org.groupUid]);
      assert.match(table, /Username: +\S+\/[0-9a-f]{16}\n/);
      assert.match(table, /docker login/);
      // The printed skopeo line logs in to this plain-HTTP registry as it is.
      const skopeoLine = /^ {2}(echo .* \| skopeo login .*)$/m.exec(table)?.[1];
      assert.ok(skopeoLine?.includes("--tls-verify=false"), table);
      const fresh = await mkdtemp(join(tmpdir(), "lading-login-"));
      const authFile = join(fresh, "auth.json");
      await run("bash", ["-euo", "pipefail", "-c", skopeoLine ?? "false"], {
        cwd: fresh,
        env: { PATH: process.env.PATH, HOME: fresh, REGISTRY_AUTH_FILE: authFile },
      });
      assert.match(await readFile(authFile, "utf8"), new RegExp(r.host.replace(".", "\\.")));
      await rm(fresh, { recursive: true, force: true });
      const env = await ok(["auth", "pull-token", "--parent", r.server.org.groupUid, "-o", "env"]);
      assert.match(env, new RegExp(`^LADING_PULL_TOKEN_REGISTRY=${r.host}$`, "m"));
      assert.match(env, /^LADING_PULL_TOKEN_USERNAME=\S+\/[0-9a-f]{16}$/m);
      assert.match(env, /^LADING_PULL_TOKEN_PASSWORD=[\w-]+\.[\w-]+\.[\w-]+$/m);

      await ok(["iam", "identities", "delete", created.username]);
      await assert.rejects(
        skopeo("inspect", ...creds, `docker://${r.host}/acme/app:latest`),
        /unauthorized|authentication|denied/i,
      );
    });

    it("uses LADING_TOKEN as is, re-mints it for another audience, and fails clearly when it cannot", async () => {
      const ready = await r.server.token(r.server.org.identityUid);
      const withToken = { LADING_TOKEN: ready };
      assert.equal((await ok(["auth", "token"], withToken)).trim(), ready);
      const reminted = (await ok(["auth", "token", "--audience", r.host], withToken)).trim();
      assert.equal(claims(reminted).aud, r.host);
      assert.equal(claims(reminted).sub, r.server.org.identityUid);
      assert.ok(claims(reminted).exp <= claims(ready).exp);
      const status = JSON.parse(await ok(["auth", "status", "-o", "json"], withToken));
      assert.equal(status.identity, r.server.org.identityUid);
      assert.equal(status.source, "LADING_TOKEN");

      const refused = await lading(
        ["auth", "token", "--audience", "https://elsewhere.example"],
        withToken,
      );
      assert.equal(refused.code, 1);
      assert.match(
        refused.stderr,
        /LADING_TOKEN cannot be exchanged for audience https:\/\/elsewhere\.example: \S/,
      );
      const expired = [
        "e30",
        Buffer.from(JSON.stringify({ sub: "x", exp: 1 })).toString("base64url"),
        "x",
      ].join(".");
      const old = await lading(["auth", "token"], { LADING_TOKEN: expired });
      assert.equal(old.code, 1);
      assert.match(old.stderr, /LADING_TOKEN has expired/);
    });

    it("logs out: the refresh token is revoked and the session forgotten; login remembers the provider", async () => {
      const spent = (await stored())[r.server.apiUrl].refreshToken;
      const out = await lading(["auth", "logout"]);
      assert.equal(out.code, 0, out.stderr);
      assert.match(out.stdout, /Signed out/);
      assert.equal(
        (await postForm(`${r.server.apiUrl}/sts/exchange_refresh_token`, {}, spent)).status,
        401,
      );
      assert.deepEqual((await stored())[r.server.apiUrl], { identityProvider: idp });
      assert.equal((await lading(["auth", "status"])).code, 1);
      assert.match((await lading(["auth", "token"])).stderr, /not signed in/);

      const invite = await fetch(`${r.server.apiUrl}/iam/v2/groupInvites/${r.publicOrg.groupUid}`, {
        method: "POST",
        headers: { authorization: `Bearer ${await r.server.token(r.publicOrg.identityUid)}` },
        body: JSON.stringify({ roleUid: builtInRoleUid("viewer"), ttl: "3600s" }),
      });
      const { code } = (await invite.json()) as { code: string };
      assert.equal(invite.status, 200, code);
      const again = await signIn("bob", "--invite-code", code);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, new RegExp(`Signed in as ${userUid("bob")}\n`));
      assert.match(
        again.stdout,
        new RegExp(
          `Accepted the invite: role viewer on group public \\(${r.publicOrg.groupUid}\\)`,
        ),
      );
    });

    it("a new sign-in revokes the session it replaces", async () => {
      const replaced = (await stored())[r.server.apiUrl].refreshToken;
      const again = await signIn("bob");
      assert.equal(again.code, 0, again.stderr);
      assert.notEqual((await stored())[r.server.apiUrl].refreshToken, replaced);
      const refused = await postForm(`${r.server.apiUrl}/sts/exchange_refresh_token`, {}, replaced);
      assert.equal(refused.status, 401);
    });

    it("logout forgets the session even when the server cannot be reached, with a warning", async () => {
      const all = await stored();
      const gone = "http://127.0.0.1:9";
      all[gone] = { ...all[r.server.apiUrl] };
      await writeFile(credentialsFile, JSON.stringify(all));
      const out = await lading(["auth", "logout"], { LADING_API_URL: gone });
      assert.equal(out.code, 0);
      assert.match(out.stderr, /warning: the server did not revoke the session/);
      assert.deepEqual((await stored())[gone], { identityProvider: idp });
      assert.equal((await stored())[r.server.apiUrl].identity, userUid("bob"));
    });
  });
}
