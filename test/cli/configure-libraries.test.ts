import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { basic, dependencyPlugin, mvn, mvnSkip, pom } from "../libraries/maven-support.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";
import { type CliRunner, cliRunner } from "./cli-support.ts";

const run = promisify(execFile);
const debianMirror =
  "<mirror><id>debian</id><mirrorOf>*,!lading</mirrorOf><url>file:///usr/share/maven-repo</url></mirror>";

/** The credentials a settings.xml gives Maven for server `lading`. */
function mavenServer(xml: string) {
  const server =
    /<server>\s*<id>lading<\/id>\s*<username>([^<]+)<\/username>\s*<password>([^<]+)</.exec(xml);
  assert.ok(server, xml);
  return { username: server[1], password: server[2], auth: basic(server[2], server[1]) };
}

/** `lading auth configure-pip|npm|maven`: real CLI processes against a real server. */
for (const pair of registryPairs) {
  describe(`lading auth configure-<client> [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let cli: CliRunner;
    let dir: string;
    const configure = async (...args: string[]) => {
      const ran = await cli.run(["auth", ...args]);
      assert.equal(ran.code, 0, `lading auth ${args.join(" ")}: ${ran.stderr}`);
      return ran.stdout;
    };

    before(async () => {
      r = await startRegistryServer(pair);
      cli = await cliRunner({
        LADING_API_URL: r.server.apiUrl,
        LADING_REGISTRY_URL: r.registryUrl,
        LADING_TOKEN: r.server.org.token,
      });
      dir = await mkdtemp(join(tmpdir(), "lading-configure-"));
    });
    after(async () => {
      await r.close();
      await cli.cleanup();
      await rm(dir, { recursive: true, force: true });
    });

    it("configure-maven merges settings.xml with credentials that publish, then only read", async () => {
      const file = join(dir, "settings.xml");
      const localRepo = join(dir, "m2");
      await writeFile(
        file,
        `<?xml version="1.0"?>\n<settings>\n  <localRepository>${localRepo}</localRepository>\n  <servers>\n    <server><id>corp</id><username>me</username></server>\n  </servers>\n  <mirrors>\n    ${debianMirror}\n  </mirrors>\n</settings>\n`,
        { mode: 0o644 },
      );
      const printed = await configure(
        "configure-maven",
        "--parent",
        "acme",
        "--publish",
        "--file",
        file,
      );
      const repo = `${r.registryUrl}/java/acme/`;
      assert.match(printed, new RegExp(`Repository: ${repo.replaceAll(".", "\\.")}`));
      assert.match(printed, /distributionManagement/);
      const xml = await readFile(file, "utf8");
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      assert.match(xml, /<id>corp<\/id>/, "the existing server stays");
      assert.match(xml, /<mirrorOf>\*,!lading<\/mirrorOf>/, "the existing mirror stays");
      assert.match(xml, /lading-expires=\d{4}-/);
      assert.match(xml, new RegExp(`<url>${repo.replaceAll(".", "\\.")}</url>`));
      const publisher = mavenServer(xml);
      const jar = "org/acme/configured/1.0/configured-1.0.jar";
      const put = (auth: string, path: string) =>
        fetch(`${repo}${path}`, { method: "PUT", headers: { authorization: auth }, body: "jar" });
      assert.equal((await put(publisher.auth, jar)).status, 201);
      const pomPath = "org/acme/configured/1.0/configured-1.0.pom";
      const pomBody = pom("org.acme", "configured", "1.0");
      const pomPut = await fetch(`${repo}${pomPath}`, {
        method: "PUT",
        headers: { authorization: publisher.auth },
        body: pomBody,
      });
      assert.equal(pomPut.status, 201);

      // Again without --publish: Lading's server entry is replaced, not added to.
      await configure("configure-maven", "--parent", r.server.org.groupUid, "--file", file);
      const again = await readFile(file, "utf8");
      const ids = again.match(/<id>lading<\/id>/g)?.length;
      assert.equal(ids, 3, "one server, one profile, one repository");
      assert.equal(again.match(/<activeProfile>lading<\/activeProfile>/g)?.length, 1);
      const reader = mavenServer(again);
      assert.notEqual(reader.username, publisher.username);
      assert.equal(
        (await put(reader.auth, "org/acme/configured/1.1/configured-1.1.jar")).status,
        403,
      );
      const got = await fetch(`${repo}${jar}`, { headers: { authorization: reader.auth } });
      assert.equal(await got.text(), "jar");

      if (!mvnSkip) {
        // Maven itself resolves through the written profile and server: no -DremoteRepositories.
        const output = await mvn(
          dir,
          file,
          `org.apache.maven.plugins:maven-dependency-plugin:${dependencyPlugin}:get`,
          "-Dartifact=org.acme:configured:1.0",
          "-Dtransitive=false",
        );
        assert.match(output, /Downloaded from lading: .*configured-1\.0\.jar/);
        const fetched = join(localRepo, "org/acme/configured/1.0/configured-1.0.jar");
        assert.equal(await readFile(fetched, "utf8"), "jar");
      }

      const checked = await cli.run(["auth", "configure-maven", "--check", "--file", file]);
      assert.equal(checked.code, 0, checked.stderr);
      assert.match(checked.stdout, /(29|30) days left/);
    });

    it("configure-pip writes pip.conf pip reads and, with --publish, a .pypirc twine reads", async () => {
      const file = join(dir, "pip.conf");
      await writeFile(
        file,
        "[global]\ntimeout = 42\nindex-url = https://pypi.invalid/simple/\n\n[install]\nno-compile = true\n",
      );
      const json = JSON.parse(
        await configure(
          "configure-pip",
          "--parent",
          "acme",
          "--publish",
          "--file",
          file,
          "-o",
          "json",
        ),
      );
      assert.deepEqual(json.files, [file, join(cli.home, ".pypirc")]);
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      const { stdout } = await run("pip", ["config", "list"], {
        env: { ...process.env, PIP_CONFIG_FILE: file },
      });
      assert.match(stdout, /^global\.timeout='42'$/m);
      assert.match(stdout, /^install\.no-compile='true'$/m);
      const indexUrl = /^global\.index-url='([^']+)'$/m.exec(stdout)?.[1] ?? "";
      const url = new URL(indexUrl);
      assert.equal(`${url.origin}${url.pathname}`, `${r.registryUrl}/python/acme/simple/`);
      const username = decodeURIComponent(decodeURIComponent(url.username));
      const password = decodeURIComponent(url.password);
      assert.equal(username, json.username);
      await assertCredential(username, password, "python");
      // pip itself sends them (the uid's "/" as %2F, which the repository reads as "/"), from
      // the same file pointed at a recording server.
      const seen = await sentAuthorization(await readFile(file, "utf8"), file, (copy) =>
        run("pip", ["download", "--no-deps", "-d", join(dir, "dl"), "demo"], {
          env: { ...process.env, PIP_CONFIG_FILE: copy, PIP_DISABLE_PIP_VERSION_CHECK: "1" },
        }),
      );
      assert.equal(seen, basic(password, username.replace("/", "%2F")));
      await assertCredential(username, password, "python", username.replace("/", "%2F"));

      const pypirc = join(cli.home, ".pypirc");
      const parsed = await run("python3", [
        "-c",
        "import configparser,sys; c=configparser.RawConfigParser(); c.read(sys.argv[1]); print(c['distutils']['index-servers'].split()); print(c['lading']['repository']); print(c['lading']['username'])",
        pypirc,
      ]);
      assert.equal(
        parsed.stdout,
        `['pypi', 'testpypi', 'lading']\n${r.registryUrl}/python/acme/\n${username}\n`,
      );
    });

    it("configure-npm writes a scoped registry and its credentials into .npmrc", async () => {
      const file = join(dir, "npmrc");
      await writeFile(file, "fund=false\n//registry.npmjs.org/:_authToken=keep-me\n");
      await configure("configure-npm", "--parent", "acme", "--scope", "@acme", "--file", file);
      await configure("configure-npm", "--parent", "acme", "--scope", "@acme", "--file", file);
      const text = await readFile(file, "utf8");
      assert.match(text, /^fund=false$/m);
      assert.match(text, /^\/\/registry\.npmjs\.org\/:_authToken=keep-me$/m);
      assert.equal(text.match(/lading-expires=/g)?.length, 1, "the second run replaced the first");
      const npm = (key: string) =>
        run("npm", ["config", "get", key, "--userconfig", file], { cwd: dir }).then((o) =>
          o.stdout.trim(),
        );
      const repo = `${r.registryUrl}/javascript/acme/`;
      assert.equal(await npm("@acme:registry"), repo);
      assert.equal(await npm("fund"), "false");
      const authLine = new RegExp(
        `^${repo.replace(/^http:/, "").replaceAll(".", "\\.")}:_auth=(\\S+)$`,
        "m",
      );
      const auth = Buffer.from(authLine.exec(text)?.[1] ?? "", "base64").toString("utf8");
      const colon = auth.indexOf(":");
      await assertCredential(auth.slice(0, colon), auth.slice(colon + 1), "javascript");
      // npm itself sends them for the scope: the same file, pointed at a recording server.
      const seen = await sentAuthorization(text, file, (copy) =>
        run("npm", ["view", "@acme/demo", "--userconfig", copy, "--fetch-retries=0"], { cwd: dir }),
      );
      assert.equal(seen, basic(auth.slice(colon + 1), auth.slice(0, colon)));
      const bad = await cli.run(["auth", "configure-npm", "--parent", "acme", "--scope", "acme"]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /not an npm scope/);
    });

    it("--check fails within 7 days and once expired, and the repository says how to renew", async () => {
      const soon = join(dir, "soon.xml");
      await configure("configure-maven", "--parent", "acme", "--ttl", "48h", "--file", soon);
      const warned = await cli.run(["auth", "configure-maven", "--check", "--file", soon]);
      assert.equal(warned.code, 1);
      assert.match(warned.stderr, /1 days left.*lading auth configure-maven/);

      const brief = join(dir, "brief.conf");
      await configure("configure-maven", "--parent", "acme", "--ttl", "2s", "--file", brief);
      const { auth } = mavenServer(await readFile(brief, "utf8"));
      const meta = `${r.registryUrl}/java/acme/org/acme/x/maven-metadata.xml`;
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const expired = await cli.run(["auth", "configure-maven", "--check", "--file", brief]);
      assert.equal(expired.code, 1);
      assert.match(expired.stderr, /expired on .*lading auth configure-maven/);
      const refused = await fetch(meta, { headers: { authorization: auth } });
      assert.equal(refused.status, 401);
      assert.match(await refused.text(), /expired.*run lading auth configure-maven/);

      const missing = await cli.run([
        "auth",
        "configure-pip",
        "--check",
        "--file",
        join(dir, "none"),
      ]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /no Lading credentials/);
    });

    /**
     * The Authorization header a client sends when `config` (written for the real server) points
     * at a loopback server answering 404: whether the client reads Lading's lines as meant.
     */
    async function sentAuthorization(
      config: string,
      file: string,
      client: (copy: string) => Promise<unknown>,
    ): Promise<string | undefined> {
      let seen: string | undefined;
      const recorder = createServer((req, res) => {
        seen ??= req.headers.authorization;
        res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
      });
      await new Promise<void>((resolve) => recorder.listen(0, "127.0.0.1", resolve));
      const { port } = recorder.address() as AddressInfo;
      const copy = `${file}.recorder`;
      await writeFile(copy, config.replaceAll(new URL(r.registryUrl).host, `127.0.0.1:${port}`));
      await client(copy).catch(() => undefined);
      await new Promise((resolve) => recorder.close(resolve));
      return seen;
    }

    /**
     * The credential authenticates at the real server and grants `ecosystem` only: the Maven
     * repository (the one whose answer depends on it here) says 404 for a python or npm pull
     * token, which can read acme but not its Java packages, and 401 for a wrong password.
     */
    async function assertCredential(
      username: string,
      password: string,
      ecosystem: string,
      basicUser = username,
    ) {
      const url = `${r.registryUrl}/java/acme/org/acme/x/maven-metadata.xml`;
      const valid = await fetch(url, { headers: { authorization: basic(password, basicUser) } });
      assert.equal(valid.status, 404);
      assert.match(await valid.text(), /no java repository for organisation acme/);
      const wrong = await fetch(url, {
        headers: { authorization: basic(`${password}x`, basicUser) },
      });
      assert.equal(wrong.status, 401);
      const roles = await fetch(
        `${r.server.apiUrl}/iam/v2/roleBindings?identity=${encodeURIComponent(username)}`,
        { headers: { authorization: `Bearer ${r.server.org.token}` } },
      ).then((res) => res.json());
      assert.match(
        JSON.stringify(roles),
        new RegExp(`libraries\\.${ecosystem}\\.push|libraries\\.${ecosystem}\\.pull`),
      );
    }
  });
}
