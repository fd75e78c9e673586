import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import {
  basicToken,
  buildWheel,
  type PythonFile,
  twineFields,
  twineUpload,
} from "../support/python-packages.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";

const run = promisify(execFile);

/** No configuration of the machine's own (find-links, extra indexes): only the index given. */
const pipEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("PIP_"))),
  PIP_CONFIG_FILE: "/dev/null",
};

/** Runs `python3 -m pip`; resolves to its output, or to the failure with stderr. */
async function pip(...args: string[]): Promise<{ ok: boolean; out: string }> {
  try {
    const { stdout, stderr } = await run(
      "python3",
      ["-m", "pip", ...args, "--no-cache-dir", "--disable-pip-version-check", "--no-input"],
      { env: pipEnv },
    );
    return { ok: true, out: stdout + stderr };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { ok: false, out: `${e.stdout ?? ""}${e.stderr ?? String(error)}` };
  }
}

/** pip installs, downloads and hash-checks through the Simple API, as a user runs it. */
for (const pair of registryPairs) {
  describe(`pip against the Python repository [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let dir: string;
    let index: string;
    const wheels = {
      alpha: buildWheel({ name: "alpha", version: "1.0", requires: ["beta>=1.0"] }),
      beta1: buildWheel({ name: "beta", version: "1.0" }),
      beta2: buildWheel({ name: "beta", version: "2.0" }),
      gamma1: buildWheel({ name: "gamma", version: "1.0" }),
      gamma2: buildWheel({ name: "gamma", version: "2.0", requiresPython: ">=4" }),
      open: buildWheel({ name: "Open.Pkg", version: "0.1" }),
    };
    const upload = async (
      org: string,
      token: string,
      file: PythonFile,
      name: string,
      version: string,
      extra = {},
    ) => {
      const answer = await twineUpload(
        `${r.registryUrl}/python/${org}/`,
        basicToken(token),
        file,
        twineFields(file, name, version, extra),
      );
      assert.equal(answer.status, 200, answer.text);
    };
    const installed = async (target: string) => (await readdir(target)).sort();

    before(async () => {
      r = await startRegistryServer(pair);
      dir = await mkdtemp(join(tmpdir(), "lading-pip-"));
      const host = new URL(r.registryUrl).host;
      index = `http://_token:${r.ownerToken}@${host}/python/acme/simple/`;
      await upload("acme", r.ownerToken, wheels.alpha, "alpha", "1.0");
      await upload("acme", r.ownerToken, wheels.beta1, "beta", "1.0");
      await upload("acme", r.ownerToken, wheels.beta2, "beta", "2.0");
      await upload("acme", r.ownerToken, wheels.gamma1, "gamma", "1.0");
      await upload("acme", r.ownerToken, wheels.gamma2, "gamma", "2.0", { requires_python: ">=4" });
      await upload("public", r.publicOrg.token, wheels.open, "Open.Pkg", "0.1");
    });
    after(async () => {
      await rm(dir, { recursive: true, force: true });
      await r?.close();
    });

    it("installs a package and resolves its dependency to the highest version", async () => {
      const target = join(dir, "alpha");
      const result = await pip("install", "--index-url", index, "alpha", "--target", target);
      assert.ok(result.ok, result.out);
      const names = await installed(target);
      assert.ok(names.includes("alpha"), names.join());
      assert.ok(names.includes("beta-2.0.dist-info"), names.join());
      const module = await readFile(join(target, "beta", "__init__.py"), "utf8");
      assert.match(module, /VERSION = "2.0"/);
    });

    it("skips a file whose Requires-Python the interpreter does not meet", async () => {
      const target = join(dir, "gamma");
      const result = await pip("install", "--index-url", index, "gamma", "--target", target);
      assert.ok(result.ok, result.out);
      assert.ok((await installed(target)).includes("gamma-1.0.dist-info"));
      const forced = await pip(
        "install",
        "--index-url",
        index,
        "gamma==2.0",
        "--target",
        join(dir, "g2"),
      );
      assert.equal(forced.ok, false);
      assert.match(forced.out, /Requires-Python|No matching distribution/);
    });

    it("downloads a pinned version's wheel byte for byte", async () => {
      const dest = join(dir, "download");
      const wheel = await pip(
        "download",
        "--index-url",
        index,
        "beta==1.0",
        "--no-deps",
        "-d",
        dest,
      );
      assert.ok(wheel.ok, wheel.out);
      assert.deepEqual(await readdir(dest), ["beta-1.0-py3-none-any.whl"]);
      const bytes = await readFile(join(dest, "beta-1.0-py3-none-any.whl"));
      assert.ok(bytes.equals(wheels.beta1.bytes));
    });

    it("checks hashes with --require-hashes, refusing a wrong one", async () => {
      const sha = (f: PythonFile) => createHash("sha256").update(f.bytes).digest("hex");
      const good = join(dir, "good.txt");
      await writeFile(good, `beta==1.0 --hash=sha256:${sha(wheels.beta1)}\n`);
      const ok = await pip(
        "install",
        "--index-url",
        index,
        "--require-hashes",
        "-r",
        good,
        "--target",
        join(dir, "h1"),
      );
      assert.ok(ok.ok, ok.out);
      const wrong = join(dir, "wrong.txt");
      await writeFile(wrong, `beta==1.0 --hash=sha256:${"0".repeat(64)}\n`);
      const refused = await pip(
        "install",
        "--index-url",
        index,
        "--require-hashes",
        "-r",
        wrong,
        "--target",
        join(dir, "h2"),
      );
      assert.equal(refused.ok, false);
      assert.match(refused.out, /HASHES|hash/i);
    });

    it("installs anonymously from the public organisation, never from acme", async () => {
      const host = new URL(r.registryUrl).host;
      const target = join(dir, "open");
      const result = await pip(
        "install",
        "--index-url",
        `http://${host}/python/public/simple/`,
        "open-pkg",
        "--target",
        target,
      );
      assert.ok(result.ok, result.out);
      assert.ok((await installed(target)).includes("Open_Pkg-0.1.dist-info"));
      const denied = await pip(
        "install",
        "--index-url",
        `http://${host}/python/acme/simple/`,
        "alpha",
        "--target",
        join(dir, "no"),
      );
      assert.equal(denied.ok, false);
      assert.match(denied.out, /No matching distribution/);
      // What pip was told: authenticate, with the Basic challenge it answers from its URL.
      const res = await fetch(`http://${host}/python/acme/simple/alpha/`);
      assert.equal(res.status, 401);
      assert.match(res.headers.get("www-authenticate") ?? "", /^Basic /);
    });
  });
}
