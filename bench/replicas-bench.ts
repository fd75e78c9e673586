import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { ociClient } from "../test/support/oci-client.ts";
import { buildImage } from "../test/support/oci-layout.ts";
import { startReplicaCluster } from "../test/support/replica-cluster.ts";
import { parseWrk } from "./oci-workloads.ts";

const run = promisify(execFile);

/** One wrk run through the load balancer. */
export interface ReplicaMeasurement {
  workload: "manifest GET by tag" | "blob pull (4 MiB)";
  replicas: number;
  requestsPerSecond: number;
  mibPerSecond: number;
  /** Non-2xx answers plus socket errors (connect, read, write, timeout). */
  errors: number;
}

/**
 * `npm run bench -- replicas`: three replicas on one PostgreSQL and one s3rver behind nginx (the
 * configuration of docs/operations.md), measured with wrk (-t2 -c16, 30 s timeout) through the load balancer
 * with 1, 2 and then 3 replicas in its upstreams: manifest GETs by tag and pulls of a 4 MiB blob.
 * Every request must be answered 200.
 */
export async function measureReplicas(log: (line: string) => void): Promise<ReplicaMeasurement[]> {
  const seconds = Number(process.env.LADING_BENCH_REPLICAS_SECONDS ?? 10);
  log("replicas: starting three replicas, s3rver and nginx…");
  const cluster = await startReplicaCluster(3);
  const rows: ReplicaMeasurement[] = [];
  try {
    const token = await cluster.token(cluster.org.identityUid, cluster.host);
    const client = ociClient(cluster.registryUrl, token);
    const image = buildImage("replicas bench");
    await client.pushImage("acme/bench", "latest", image);
    const blob = await client.pushBlob("acme/bench", randomBytes(4 * 1024 * 1024));
    const workloads = [
      {
        workload: "manifest GET by tag" as const,
        path: "/v2/acme/bench/manifests/latest",
        accept: "application/vnd.oci.image.manifest.v1+json",
      },
      {
        workload: "blob pull (4 MiB)" as const,
        path: `/v2/acme/bench/blobs/${blob}`,
        accept: "*/*",
      },
    ];
    for (let n = 1; n <= 3; n++) {
      const serving = cluster.replicas.slice(0, n);
      await cluster.nginx.reload({
        registry: serving.map((r) => r.registryAddress),
        api: serving.map((r) => r.apiAddress),
      });
      for (const w of workloads) {
        const args = [
          "-t2",
          "-c16",
          "--timeout",
          "30s",
          "-H",
          `Authorization: Bearer ${token}`,
          "-H",
          `Accept: ${w.accept}`,
        ];
        await run("wrk", [...args, "-d2s", `${cluster.registryUrl}${w.path}`]);
        const { stdout } = await run("wrk", [
          ...args,
          `-d${seconds}s`,
          `${cluster.registryUrl}${w.path}`,
        ]);
        const { rate, mib, errors } = parseWrk(stdout);
        log(`replicas: ${n} × ${w.workload}: ${rate.toFixed(0)} req/s, ${errors} errors`);
        rows.push({
          workload: w.workload,
          replicas: n,
          requestsPerSecond: rate,
          mibPerSecond: mib,
          errors,
        });
      }
    }
  } finally {
    await cluster.close();
  }
  return rows;
}
