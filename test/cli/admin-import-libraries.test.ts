import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { hex, pom } from "../libraries/maven-support.ts";
import { ok } from "../support/event-log.ts";
import { catalogueApi } from "../support/libraries.ts";
import { npm, packageTarball } from "../support/npm-packages.ts";
import { buildSdist, buildWheel } from "../support/python-packages.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";
import { type CliRunner, cliRunner } from "./cli-support.ts";

const run = promisify(execFile);

/** Writes `files` (path relative to `root` → bytes) into a new mirror folder. */
async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [path, bytes] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), bytes);
  }
}

/** `python3 -m pip download` with only the index given; resolves to its output or failure. */
async function pipDownload(index: string, spec: string, dest: string) {
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PIP_"))),
    PIP_CONFIG_FILE: "/dev/null",
  };
  const args = ["-m", "pip", "download", "--no-deps", "--index-url", index, spec, "-d", dest];
  const { stdout, stderr } = await run(
    "python3",
    [...args, "--no-cache-dir", "--disable-pip-version-check", "--no-input"],
    { env },
  );
  return stdout + stderr;
}

const group = "com/example/imp/demo/1.0";

/** One ecosystem's counts in the JSON summary, in its order. */
const counts = (...n: number[]) => {
  const keys = [
    "artifacts",
    "versionsCreated",
    "filesCreated",
    "filesUnchanged",
    "filesConflicting",
    "filesRefused",
  ];
  return Object.fromEntries(keys.map((key, i) => [key, n[i]]));
};
const jar = Buffer.from("PK\u0005\u0006".padEnd(22, "\u0000"));

/**
 * `lading admin import libraries` as a real process against a running server's store (on
 * SQLite, WAL lets the CLI commit while the server reads), then real clients install what it
 * imported through the repositories.
 */
for (const pair of registryPairs) {
  describe(`lading admin import libraries [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let cli: CliRunner;
    let dir: string;
    let mirror: string;
    let storeFlags: string[];
    const importMirror = async () => {
      const result = await cli.run(
        ["-o", "json", "admin", "import", "libraries", "--org", "acme", ...storeFlags, mirror],
        pair.blobs === "s3"
          ? {
              AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? "",
              AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? "",
            }
          : {},
      );
      return { ...result, summary: result.stdout ? JSON.parse(result.stdout) : undefined };
    };

    before(async () => {
      r = await startRegistryServer(pair);
      cli = await cliRunner();
      dir = await mkdtemp(join(tmpdir(), "lading-import-"));
      mirror = join(dir, "mirror");
      const options = r.server.store.options;
      storeFlags = [
        ...(options.databaseUrl ? ["--database-url", options.databaseUrl] : []),
        "--data-dir",
        options.dataDir,
        ...(r.blobStore ? ["--blob-store", r.blobStore] : []),
        "--registry-url",
        r.registryUrl,
        "--api-url",
        r.server.apiUrl,
      ];
      const wheel1 = buildWheel({ name: "imp-demo", version: "1.0" });
      const wheel2 = buildWheel({ name: "imp-demo", version: "2.0", requiresPython: ">=3.8" });
      const sdist1 = await buildSdist("imp-demo", "1.0");
      const pomText = pom(
        "com.example.imp",
        "demo",
        "1.0",
        "<description>Imported demo</description>",
      );
      await writeTree(mirror, {
        [`python/i/${wheel1.filename}`]: wheel1.bytes,
        [`python/i/${wheel2.filename}`]: wheel2.bytes,
        [`python/i/${sdist1.filename}`]: sdist1.bytes,
        "python/broken-1.0-py3-none-any.whl": Buffer.from("not a zip archive"),
        "python/notes.txt": "not a distribution",
        "javascript/imp-pad-1.0.0.tgz": await packageTarball("imp-pad", "1.0.0"),
        "javascript/imp-pad-1.1.0.tgz": await packageTarball("imp-pad", "1.1.0"),
        "javascript/acme-imp-util-0.2.0.tgz": await packageTarball("@acme/imp-util", "0.2.0"),
        "javascript/imp-pad-2.0.0.tgz": await packageTarball("imp-pad", "3.0.0"),
        [`java/${group}/demo-1.0.jar`]: jar,
        [`java/${group}/demo-1.0.jar.sha1`]: hex("sha1", jar),
        [`java/${group}/demo-1.0.pom`]: pomText,
        "java/com/example/imp/demo/maven-metadata.xml": "<metadata/>",
        "java/com/example/imp/bad/1.0/bad-1.0.jar": jar,
        "java/com/example/imp/bad/1.0/bad-1.0.jar.sha1": "0".repeat(40),
        "java/com/example/imp/snap/1.0-SNAPSHOT/snap-1.0-SNAPSHOT.jar": jar,
        "README.md": "a mirror",
      });
      await symlink("/etc/passwd", join(mirror, "python", "evil-1.0-py3-none-any.whl"));
      // A symlink to a file inside the folder is followed: the same file twice is one file.
      await mkdir(join(mirror, "javascript", "copy"));
      await symlink(
        "../imp-pad-1.1.0.tgz",
        join(mirror, "javascript", "copy", "imp-pad-1.1.0.tgz"),
      );
    });
    after(async () => {
      await cli?.cleanup();
      if (dir) await rm(dir, { recursive: true, force: true });
      await r?.close();
    });

    it("imports every valid file, reports each refusal and exits non-zero", async () => {
      const { code, summary, stderr } = await importMirror();
      assert.equal(code, 1, stderr);
      assert.match(stderr, /\d+\/\d+ files, [\d.]+ MiB\/[\d.]+ MiB/);
      assert.deepEqual(summary.ecosystems, {
        python: counts(1, 2, 3, 0, 0, 2),
        javascript: counts(2, 3, 3, 1, 0, 1),
        java: counts(1, 1, 2, 0, 0, 1),
      });
      assert.equal(summary.refused, 4);
      assert.equal(summary.ignored, 3);
      assert.equal(summary.skipped, 3);
      const problems = Object.fromEntries(
        summary.problems.map((p: { path: string; outcome: string; reason: string }) => [
          p.path,
          `${p.outcome}: ${p.reason}`,
        ]),
      );
      assert.match(problems["python/broken-1.0-py3-none-any.whl"], /^refused: .*zip/);
      assert.match(problems["python/evil-1.0-py3-none-any.whl"], /^refused: a symlink leading out/);
      assert.match(
        problems["javascript/imp-pad-2.0.0.tgz"],
        /^refused: package.json names imp-pad@3.0.0/,
      );
      assert.match(
        problems["java/com/example/imp/bad/1.0/bad-1.0.jar"],
        /^refused: sha1 of the upload is/,
      );
      assert.match(
        problems["java/com/example/imp/snap/1.0-SNAPSHOT/snap-1.0-SNAPSHOT.jar"],
        /^skipped: .*SNAPSHOT/,
      );
      assert.match(problems["python/notes.txt"], /^skipped: /);
      assert.match(problems["README.md"], /^skipped: /);
      // Nothing of the refused files reached the catalogue.
      const db = r.server.lading.store.db;
      const versions = await db.selectFrom("library_versions").select("uid").execute();
      assert.deepEqual(versions.map((v) => v.uid.split(":").slice(2).join(":")).sort(), [
        "@acme~imp-util@0.2.0",
        "com.example.imp:demo@1.0",
        "imp-demo@1.0",
        "imp-demo@2.0",
        "imp-pad@1.0.0",
        "imp-pad@1.1.0",
      ]);
    });

    it("records each new version's publish event as the local administrator", async () => {
      const events = await r.server.lading.store.db
        .selectFrom("events")
        .select(["type", "source", "data"])
        .where("type", "=", "dev.lading.libraries.publish.v1")
        .execute();
      assert.equal(events.length, 6);
      const sources = new Set(events.map((e) => e.source));
      assert.deepEqual(
        [...sources].sort(),
        ["java", "javascript", "python"].map((e) => `${r.registryUrl}/${e}/acme`),
      );
      for (const e of events) {
        assert.deepEqual(JSON.parse(e.data).actor, { subject: "", act: { sub: "lading-admin" } });
      }
    });

    it("serves what it imported to pip, npm and a Maven GET, and lists it in the catalogue", async () => {
      const host = new URL(r.registryUrl).host;
      const dest = join(dir, "pip");
      await pipDownload(
        `http://_token:${r.ownerToken}@${host}/python/acme/simple/`,
        "imp-demo==2.0",
        dest,
      );
      assert.deepEqual(await readdir(dest), ["imp_demo-2.0-py3-none-any.whl"]);

      const project = join(dir, "project");
      await mkdir(project);
      await writeFile(
        join(project, "package.json"),
        JSON.stringify({ name: "p", version: "0.0.0" }),
      );
      const registry = `${r.registryUrl}/javascript/acme/`;
      const rc = join(dir, "acme.npmrc");
      await writeFile(
        rc,
        `registry=${registry}\n${registry.replace(/^http:/, "")}:_authToken=${r.ownerToken}\n`,
      );
      await npm(project, rc, ["install", "imp-pad", "@acme/imp-util"]);
      const installed = JSON.parse(
        await readFile(join(project, "node_modules/imp-pad/package.json"), "utf8"),
      );
      assert.equal(installed.version, "1.1.0", "latest is the highest imported version");
      const scoped = JSON.parse(
        await readFile(join(project, "node_modules/@acme/imp-util/package.json"), "utf8"),
      );
      assert.equal(scoped.version, "0.2.0");

      const auth = {
        authorization: `Basic ${Buffer.from(`_token:${r.ownerToken}`).toString("base64")}`,
      };
      const file = await fetch(`${r.registryUrl}/java/acme/${group}/demo-1.0.jar`, {
        headers: auth,
      });
      assert.equal(file.status, 200);
      const bytes = Buffer.from(await file.arrayBuffer());
      const sha1 = await fetch(`${r.registryUrl}/java/acme/${group}/demo-1.0.jar.sha1`, {
        headers: auth,
      });
      assert.equal((await sha1.text()).trim(), createHash("sha1").update(bytes).digest("hex"));
      assert.deepEqual(bytes, jar);

      const listed = await catalogueApi("rest", r.server.apiUrl, r.server.org.token).listArtifacts({
        ecosystems: ["ECOSYSTEM_PYTHON", "ECOSYSTEM_JAVASCRIPT", "ECOSYSTEM_JAVA"],
      });
      const body = ok(listed) as { artifacts: { name: string; description?: string }[] };
      const names = body.artifacts.map((a) => a.name).sort();
      assert.deepEqual(names, ["@acme/imp-util", "com.example.imp:demo", "imp-demo", "imp-pad"]);
      const java = body.artifacts.find((a) => a.name === "com.example.imp:demo");
      assert.equal(java?.description, "Imported demo");
    });

    it("refuses a file over --libraries-max-file-size, as an upload would be", async () => {
      const small = join(dir, "small-mirror");
      const wheel = buildWheel({ name: "imp-big", version: "1.0" });
      assert.ok(wheel.bytes.length > 200, "the wheel is over the limit below");
      await writeTree(small, { [`python/${wheel.filename}`]: wheel.bytes });
      const result = await cli.run(
        [
          "-o",
          "json",
          "admin",
          "import",
          "libraries",
          "--org",
          "acme",
          ...storeFlags,
          "--libraries-max-file-size",
          "200B",
          small,
        ],
        pair.blobs === "s3"
          ? {
              AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? "",
              AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? "",
            }
          : {},
      );
      assert.equal(result.code, 1, result.stderr);
      const summary = JSON.parse(result.stdout);
      assert.equal(summary.ecosystems.python.filesRefused, 1);
      assert.deepEqual(
        summary.problems.map((p: { path: string }) => p.path),
        [`python/${wheel.filename}`],
      );
      assert.match(summary.problems[0].reason, /\b200\b/);
    });

    it("a second import finds everything unchanged and a changed file in conflict", async () => {
      const changed = buildWheel({ name: "imp-demo", version: "2.0", requiresPython: ">=3.9" });
      await writeFile(join(mirror, "python/i", changed.filename), changed.bytes);
      const { code, summary } = await importMirror();
      assert.equal(code, 1);
      assert.deepEqual(summary.ecosystems.python, counts(1, 0, 0, 2, 1, 2));
      assert.deepEqual(summary.ecosystems.javascript, counts(2, 0, 0, 4, 0, 1));
      assert.deepEqual(summary.ecosystems.java, counts(1, 0, 0, 2, 0, 1));
      const conflict = summary.problems.find((p: { outcome: string }) => p.outcome === "conflict");
      assert.match(conflict.reason, /already published with other bytes/);
      assert.equal(conflict.path, `python/i/${changed.filename}`);
    });
  });
}
