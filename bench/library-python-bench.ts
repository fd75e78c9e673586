import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import {
  basicToken,
  buildWheel,
  type PythonFile,
  twineFields,
  twineUpload,
} from "../test/support/python-packages.ts";
import { freePort } from "./distribution.ts";
import { type RegistryTarget, send } from "./oci-workloads.ts";
import { type LadingProcess, startLadingProcess } from "./registry.ts";

const run = promisify(execFile);
const pipAccept =
  "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html; q=0.1, text/html; q=0.01";

/** One line of the Python repository's results. */
export interface PythonBenchRow {
  workload: string;
  value: string;
  target: string;
  met: boolean;
}

async function uploadAll(lading: LadingProcess, files: [PythonFile, string, string][]) {
  const url = `${lading.target.url}/python/acme/`;
  const auth = basicToken(lading.target.token ?? "");
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const [file, name, version] = files[next++];
      const answer = await twineUpload(url, auth, file, twineFields(file, name, version));
      if (answer.status !== 200)
        throw new Error(`upload ${file.filename}: ${answer.status} ${answer.text}`);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
}

/** Simple-index GETs per second of one project page, over 16 connections. */
async function pageRate(target: RegistryTarget, path: string, total: number): Promise<number> {
  let issued = 0;
  const worker = async () => {
    while (issued < total) {
      issued++;
      // pip's own headers: the Simple API types, and gzip (requests asks for it by default).
      const answer = await send(target, "GET", path, undefined, {
        accept: pipAccept,
        "accept-encoding": "gzip, deflate",
      });
      if (answer.status !== 200) throw new Error(`${path}: HTTP ${answer.status}`);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: 16 }, worker));
  return total / ((performance.now() - start) / 1000);
}

/** The same wheels as a static PEP 503 tree, as `python3 -m http.server` serves one. */
async function writeStaticIndex(root: string, files: [PythonFile, string, string][]) {
  await mkdir(join(root, "files"), { recursive: true });
  for (const [file, name] of files) {
    await writeFile(join(root, "files", file.filename), file.bytes);
    const sha = createHash("sha256").update(file.bytes).digest("hex");
    await mkdir(join(root, "simple", name), { recursive: true });
    await writeFile(
      join(root, "simple", name, "index.html"),
      `<!DOCTYPE html><html><body><a href="../../files/${file.filename}#sha256=${sha}">${file.filename}</a></body></html>\n`,
    );
  }
}

/** Seconds `pip install` of `names` takes from `index` into a fresh directory. */
async function pipInstall(index: string, names: string[]): Promise<number> {
  const target = await mkdtemp(join(tmpdir(), "lading-pip-bench-"));
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith("PIP_")),
  );
  const start = performance.now();
  try {
    await run(
      "python3",
      [
        "-m",
        "pip",
        "install",
        "--no-cache-dir",
        "--disable-pip-version-check",
        "--index-url",
        index,
        "--target",
        target,
        ...names,
      ],
      { env: { ...env, PIP_CONFIG_FILE: "/dev/null" }, maxBuffer: 16 << 20 },
    );
    return (performance.now() - start) / 1000;
  } finally {
    await rm(target, { recursive: true, force: true });
  }
}

/**
 * The Python repository: simple-index GET req/s of a project with 500 versions (target
 * 3,000), and `pip install` of 50 small packages from Lading against the same files served
 * as a static tree by `python3 -m http.server`.
 */
export async function measurePythonRepository(
  log: (line: string) => void,
  requests = Number(process.env.LADING_BENCH_PYTHON_GETS ?? 20_000),
): Promise<PythonBenchRow[]> {
  const lading = await startLadingProcess("acme/python");
  const staticRoot = await mkdtemp(join(tmpdir(), "lading-pypi-static-"));
  let server: ReturnType<typeof spawn> | undefined;
  try {
    log("python: publishing 500 versions of one project…");
    const versions = Array.from({ length: 500 }, (_, i) => `1.${Math.floor(i / 10)}.${i % 10}`);
    await uploadAll(
      lading,
      versions.map((v) => [buildWheel({ name: "bench-pkg", version: v }), "bench-pkg", v]),
    );
    const path = "/python/acme/simple/bench-pkg/";
    // As the npm bench: the server's after-work of 500 publishes finishes before measuring.
    await pageRate(lading.target, path, 3000);
    await sleep(3000);
    const rate = await pageRate(lading.target, path, requests);
    log(`python: simple index ${rate.toFixed(0)} req/s`);

    log("python: publishing 50 packages for pip…");
    const small: [PythonFile, string, string][] = Array.from({ length: 50 }, (_, i) => {
      const name = `small-${String(i).padStart(2, "0")}`;
      return [buildWheel({ name, version: "1.0" }), name, "1.0"];
    });
    await uploadAll(lading, small);
    await writeStaticIndex(staticRoot, small);
    const port = await freePort();
    server = spawn(
      "python3",
      ["-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", staticRoot],
      { stdio: "ignore" },
    );
    for (let i = 0; i < 50; i++) {
      if (
        await fetch(`http://127.0.0.1:${port}/simple/`).then(
          (res) => res.ok,
          () => false,
        )
      )
        break;
      await sleep(100);
    }
    const names = small.map(([, name]) => name);
    const host = new URL(lading.target.url).host;
    const ladingIndex = `http://_token:${lading.target.token}@${host}/python/acme/simple/`;
    const staticIndex = `http://127.0.0.1:${port}/simple/`;
    const fromLading = await pipInstall(ladingIndex, names);
    const fromStatic = await pipInstall(staticIndex, names);
    log(
      `python: pip install of 50 packages ${fromLading.toFixed(1)} s from Lading, ${fromStatic.toFixed(1)} s from http.server`,
    );
    return [
      {
        workload: "simple index GET, 500 versions, 16 conn",
        value: `${rate.toFixed(0)} req/s`,
        target: ">= 3000 req/s",
        met: rate >= 3000,
      },
      {
        workload: "pip install 50 packages",
        value: `${fromLading.toFixed(1)} s vs ${fromStatic.toFixed(1)} s static (${(fromLading / fromStatic).toFixed(2)}x)`,
        target: "reported",
        met: true,
      },
    ];
  } finally {
    server?.kill("SIGTERM");
    await rm(staticRoot, { recursive: true, force: true });
    await lading.stop();
  }
}
