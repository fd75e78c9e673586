import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { promisify } from "node:util";
import { describe } from "../support/counted-describe.ts";
import { basicToken, buildSdist, buildWheel } from "../support/python-packages.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";

const run = promisify(execFile);

/** Whether twine is installed (Debian's `twine` package); the suite is skipped without it. */
const hasTwine = (() => {
  try {
    execFileSync("twine", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/** Runs twine with no configuration of the machine's own; resolves to success and output. */
async function twine(...args: string[]): Promise<{ ok: boolean; out: string }> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith("TWINE_")),
  );
  try {
    const { stdout, stderr } = await run(
      "twine",
      [...args, "--non-interactive", "--disable-progress-bar"],
      {
        env: { ...env, HOME: tmpdir() },
      },
    );
    return { ok: true, out: stdout + stderr };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { ok: false, out: `${e.stdout ?? ""}${e.stderr ?? String(error)}` };
  }
}

/** The real twine client against the repository: upload, duplicate, --skip-existing. */
for (const pair of registryPairs) {
  describe(`twine upload [${pair.store}, ${pair.blobs}]`, {
    skip: !hasTwine && "twine is not installed",
  }, () => {
    let r: RegistryTestServer;
    let dir: string;
    let files: string[];
    before(async () => {
      r = await startRegistryServer(pair);
      dir = await mkdtemp(join(tmpdir(), "lading-twine-"));
      const wheel = buildWheel({ name: "twined", version: "0.3", requiresPython: ">=3.7" });
      const sdist = await buildSdist("twined", "0.3");
      files = [join(dir, wheel.filename), join(dir, sdist.filename)];
      await writeFile(files[0], wheel.bytes);
      await writeFile(files[1], sdist.bytes);
    });
    after(async () => {
      await rm(dir, { recursive: true, force: true });
      await r?.close();
    });

    /** `twine upload` of the test files to acme with `password`, and `extra` options. */
    const upload = (extra: string[] = [], password = r.ownerToken) =>
      twine(
        "upload",
        "--repository-url",
        `${r.registryUrl}/python/acme/`,
        "-u",
        "_token",
        "-p",
        password,
        ...extra,
        ...files,
      );

    it("uploads a wheel and an sdist of one version, which the Simple API then lists", async () => {
      const first = await upload();
      assert.ok(first.ok, first.out);
      const res = await fetch(`${r.registryUrl}/python/acme/simple/twined/`, {
        headers: {
          authorization: basicToken(r.ownerToken),
          accept: "application/vnd.pypi.simple.v1+json",
        },
      });
      const page = (await res.json()) as {
        files: { filename: string; "requires-python"?: string }[];
      };
      assert.deepEqual(page.files.map((f) => f.filename).sort(), [
        "twined-0.3-py3-none-any.whl",
        "twined-0.3.tar.gz",
      ]);
      assert.equal(
        page.files.find((f) => f.filename.endsWith(".whl"))?.["requires-python"],
        ">=3.7",
      );
    });

    it("fails on a file that exists, and skips it with --skip-existing", async () => {
      const again = await upload();
      assert.equal(again.ok, false);
      assert.match(again.out, /409|Conflict/);
      const skipped = await upload(["--skip-existing"]);
      assert.ok(skipped.ok, skipped.out);
      assert.match(skipped.out, /Skipping/);
    });

    it("is refused with a wrong password", async () => {
      const denied = await upload([], "wrong");
      assert.equal(denied.ok, false);
      assert.match(denied.out, /401|403|Invalid or non-existent authentication/);
    });
  });
}
