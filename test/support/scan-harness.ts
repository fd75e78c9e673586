import assert from "node:assert/strict";
import { after, before } from "node:test";
import { type OciClient, ociClient } from "./oci-client.ts";
import type { BuiltImage } from "./oci-layout.ts";
import {
  type RegistryPair,
  type RegistryTestServer,
  startRegistryServer,
} from "./registry-server.ts";
import { waitFor } from "./scan-images.ts";

/** A registry server whose scans a suite watches, and the queries it watches them with. */
export interface ScanHarness {
  readonly r: RegistryTestServer;
  /** Every digest the (recording) matcher was called with, in order. */
  matched: string[];
  oci(): OciClient;
  scanOf(digest: string): Promise<ScanRow | undefined>;
  /** The scan row once it is in `state` and satisfies `also`; fails after `ms` (15 s). */
  settled(
    digest: string,
    state: "done" | "failed",
    also?: (row: ScanRow) => boolean,
    ms?: number,
  ): Promise<ScanRow>;
  packagesOf(digest: string): Promise<PackageRow[]>;
  sbomsOf(digest: string): Promise<SbomRow[]>;
  /** `GET /v2/<name>/referrers/<digest>` over fetch: the listed descriptors. */
  referrers(name: string, digest: string): Promise<ReferrerEntry[]>;
  /** Pushes an artifact's blobs, then its manifest by digest (201 asserted). */
  pushReferrer(name: string, artifact: BuiltImage): Promise<string>;
}

type Db = RegistryTestServer["server"]["lading"]["store"]["db"];
const scanRow = (db: Db, digest: string) =>
  db.selectFrom("image_scans").selectAll().where("digest", "=", digest).executeTakeFirst();
export type ScanRow = NonNullable<Awaited<ReturnType<typeof scanRow>>>;
export interface PackageRow {
  name: string;
  version: string;
  purl: string;
  ecosystem: string;
  license: string;
  origin: string;
  sbom_digest: string;
}
export interface SbomRow {
  sbom_digest: string;
  source: string;
  format: string;
  state: string;
  reason: string;
  package_count: number;
}
export interface ReferrerEntry {
  digest: string;
  artifactType?: string;
  annotations?: Record<string, string>;
}

/**
 * Registers before/after hooks starting Lading on `pair` with a recording matcher, and
 * `config` (default settings unless given).
 */
export function scanHarness(
  pair: RegistryPair,
  config: Parameters<typeof startRegistryServer>[1] = {},
): ScanHarness {
  let server: RegistryTestServer | undefined;
  const matched: string[] = [];
  before(async () => {
    server = await startRegistryServer(pair, config, {
      matchImage: async ({ digest }) => {
        matched.push(digest);
      },
    });
  });
  after(() => server?.close());
  const h: ScanHarness = {
    get r() {
      if (!server) throw new Error("the server is not started");
      return server;
    },
    matched,
    oci: () => ociClient(h.r.registryUrl, h.r.ownerToken),
    scanOf: (digest) => scanRow(h.r.server.lading.store.db, digest),
    settled: (digest, state, also = () => true, ms = 15_000) =>
      waitFor(
        `${digest} ${state}`,
        async () => {
          const row = await h.scanOf(digest);
          return row && row.state === state && also(row) ? row : undefined;
        },
        ms,
      ),
    packagesOf: (digest) =>
      h.r.server.lading.store.db
        .selectFrom("image_packages")
        .select(["name", "version", "purl", "ecosystem", "license", "origin", "sbom_digest"])
        .where("image_digest", "=", digest)
        .orderBy("purl")
        .execute(),
    sbomsOf: (digest) =>
      h.r.server.lading.store.db
        .selectFrom("image_sboms")
        .select(["sbom_digest", "source", "format", "state", "reason", "package_count"])
        .where("image_digest", "=", digest)
        .orderBy("create_time")
        .orderBy("sbom_digest")
        .execute(),
    async referrers(name, digest) {
      const res = await h.oci().fetch(`/v2/${name}/referrers/${digest}`);
      assert.equal(res.status, 200);
      return ((await res.json()) as { manifests: ReferrerEntry[] }).manifests;
    },
    async pushReferrer(name, artifact) {
      for (const bytes of artifact.blobs.values()) await h.oci().pushBlob(name, bytes);
      const res = await h.oci().putManifest(name, artifact.descriptor.digest, artifact.manifest);
      assert.equal(res.status, 201, await res.text());
      return artifact.descriptor.digest;
    },
  };
  return h;
}
