import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bootstrapOrganisation } from "../../src/app/index.ts";
import { startTestServer, type TestServer } from "./server.ts";

/** The store pairs every registry suite runs on (issue "Registry", Tests). */
export const registryPairs = [
  { store: "sqlite", blobs: "filesystem" },
  { store: "postgres", blobs: "s3" },
] as const;

/** One of {@link registryPairs}. */
export type RegistryPair = (typeof registryPairs)[number];

/** A test server with its registry, a public organisation and helpers for registry tokens. */
export interface RegistryTestServer {
  server: TestServer;
  /** `http://127.0.0.1:<port>`. */
  registryUrl: string;
  /** The registry host: the registry token audience, and what skopeo names. */
  host: string;
  /** A Lading token of the acme owner for the registry audience. */
  ownerToken: string;
  /** The public organisation's owner. */
  publicOrg: { groupUid: string; identityUid: string; token: string };
  close(): Promise<void>;
}

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}

const S3rver = createRequire(import.meta.url)("s3rver") as new (options: {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  configureBuckets: { name: string }[];
}) => S3rverInstance;

/**
 * Starts Lading on `pair` (S3 through an s3rver on loopback, credentials from the environment
 * as in production), with organisations `acme` (bootstrapped) and `public`.
 */
export async function startRegistryServer(pair: RegistryPair): Promise<RegistryTestServer> {
  let s3: { server: S3rverInstance; dir: string } | undefined;
  let blobStore: string | undefined;
  if (pair.blobs === "s3") {
    const dir = await mkdtemp(join(tmpdir(), "lading-s3-"));
    const server = new S3rver({
      address: "127.0.0.1",
      port: 0,
      silent: true,
      directory: dir,
      configureBuckets: [{ name: "lading-registry" }],
    });
    const { port } = await server.run();
    s3 = { server, dir };
    process.env.AWS_ACCESS_KEY_ID = "S3RVER";
    process.env.AWS_SECRET_ACCESS_KEY = "S3RVER";
    blobStore = `s3://lading-registry/blobs?endpoint=http://127.0.0.1:${port}&region=us-east-1&forcePathStyle=true`;
  }
  const server = await startTestServer(pair.store, "acme", { blobStore });
  const host = server.lading.registryAudience;
  const boot = await bootstrapOrganisation(server.lading.store.db, "public");
  return {
    server,
    registryUrl: server.lading.registryUrl,
    host,
    ownerToken: await server.token(server.org.identityUid, { audience: host }),
    publicOrg: { ...boot, token: await server.token(boot.identityUid, { audience: host }) },
    async close() {
      await server.close();
      if (s3) {
        await s3.server.close();
        await rm(s3.dir, { recursive: true, force: true });
      }
    },
  };
}
