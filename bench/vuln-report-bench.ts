import { performance } from "node:perf_hooks";
import { ensureRepo, resolveRepoPath } from "../src/registry/registry-access.ts";
import {
  ensurePublicAdvisoriesGroup,
  importFeed,
  importFormats,
} from "../src/vulnerabilities/index.ts";
import { computeReport } from "../src/vulnreports/matching/index.ts";
import { generateAdvisoryDocuments } from "../test/support/advisory-documents.ts";
import { type PackageRow, storeScan } from "../test/support/image-scans.ts";
import { startTestServer, type TestServer } from "../test/support/server.ts";
import { measureLatency } from "./measure-latency.ts";

/** One measured number with its target. */
export interface ReportMeasurement {
  store: string;
  workload: string;
  value: string;
  target: string;
  met: boolean;
}

const packageCount = 2_000;
/**
 * The shares of the image's packages that have advisories. Installed versions are above every
 * generated fix, so fixed advisories clear and the unfixed ones (about 40%) match: 200
 * packages with ~10 advisories each give ~1,000 matches, a large report; 1% gives ~100.
 */
const shares = [0.1, 0.01];
const runs = 5;
const requests = 1_000;

/**
 * Matching at scale: `count` generated advisories imported into the public group, an image of
 * 2,000 packages of which 30% have advisories, then computeReport timed (median of 5) and
 * GetVulnReport of that report timed over fetch.
 */
export async function measureVulnReports(
  kind: "sqlite" | "postgres",
  count: number,
  log: (line: string) => void,
): Promise<ReportMeasurement[]> {
  const server = await startTestServer(kind);
  try {
    const db = server.lading.store.db;
    const documents = generateAdvisoryDocuments(count, 11);
    const parentUid = await ensurePublicAdvisoriesGroup(db);
    await importFeed(
      db,
      { parentUid, source: "bench", author: "bench" },
      importFormats.advisories.parser,
      documents.map((d) => ({ file: `${d.name}.advisories.yaml`, text: d.text })),
      { finish: true },
    );
    log(`  ${kind}: imported ${count} advisories in ${documents.length} documents`);
    const names = documents.map((d) => d.name);
    const repo = await ensureRepo(db, await resolveRepoPath(db, "acme/bench"));
    const out: ReportMeasurement[] = [];
    for (const [i, share] of shares.entries()) {
      const digest = `sha256:${String(i).repeat(64)}`;
      out.push(...(await measureImage(server, repo.uid, digest, names, share, kind)));
    }
    return out;
  } finally {
    await server.close();
  }
}

/** Stores one 2,000-package image, then times computeReport and GetVulnReport on it. */
async function measureImage(
  server: TestServer,
  repoUid: string,
  digest: string,
  names: string[],
  share: number,
  kind: string,
): Promise<ReportMeasurement[]> {
  const db = server.lading.store.db;
  const packages: PackageRow[] = [];
  for (let i = 0; i < packageCount; i++) {
    const name = i < packageCount * share ? names[(i * 7) % names.length] : `no-advisories-${i}`;
    const version = "99.0.0-r0";
    packages.push({ name, version, purl: `pkg:apk/wolfi/${name}@${version}`, ecosystem: "apk" });
  }
  const image = { distro: "wolfi", architecture: "amd64", size: 1 };
  await storeScan(server, repoUid, digest, image, packages);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await computeReport(db, { repoUid, digest });
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(runs / 2)];
  const report = await db
    .selectFrom("vuln_reports")
    .select("matches")
    .where("repo_uid", "=", repoUid)
    .where("digest", "=", digest)
    .orderBy("generation", "desc")
    .executeTakeFirstOrThrow();
  const matched = (JSON.parse(report.matches) as unknown[]).length;
  const label = `${packageCount} packages, ${share * 100}% with advisories`;
  const out: ReportMeasurement[] = [
    {
      store: kind,
      workload: `computeReport, ${label}`,
      value: `median ${median.toFixed(0)} ms, max ${(times.at(-1) ?? 0).toFixed(0)} ms, ${(packageCount / (median / 1000)).toFixed(0)} packages/s`,
      target: "< 1000 ms",
      met: median < 1000,
    },
  ];
  const url = `${server.apiUrl}/registry/v1/repos/${repoUid}/digests/${digest}/vulnreport`;
  const headers = { authorization: `Bearer ${server.org.token}` };
  const check = await fetch(url, { headers });
  if (!check.ok) throw new Error(`GetVulnReport answered ${check.status}: ${await check.text()}`);
  const bytes = (await check.arrayBuffer()).byteLength;
  const { p50, p99 } = await measureLatency(url, headers.authorization, requests);
  out.push({
    store: kind,
    workload: `GetVulnReport, ${matched} matches (${(bytes / 1e6).toFixed(1)} MB)`,
    value: `p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms`,
    target: "p99 < 20 ms",
    met: p99 < 20,
  });
  return out;
}
