import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bootstrapOrganisation, type LadingHooks } from "../../src/app/index.ts";
import type { ConfigInput } from "../../src/config/index.ts";
import { startS3rver } from "./s3rver.ts";
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
  /** The --blob-store URL the server uses (undefined: the data dir's filesystem). */
  blobStore?: string;
  /** The public organisation's owner. */
  publicOrg: { groupUid: string; identityUid: string; token: string };
  close(): Promise<void>;
}

/**
 * Starts Lading on `pair` (S3 through an s3rver on loopback, credentials from the environment
 * as in production), with organisations `acme` (bootstrapped) and `public`, and `config`
 * (the public organisation stays `public`); `hooks` go to the server.
 */
export async function startRegistryServer(
  pair: RegistryPair,
  config: Omit<ConfigInput, "publicOrg" | "blobStore"> = {},
  hooks: LadingHooks = {},
): Promise<RegistryTestServer> {
  let s3: { server: { close(): Promise<void> }; dir: string } | undefined;
  let blobStore: string | undefined;
  if (pair.blobs === "s3") {
    const dir = await mkdtemp(join(tmpdir(), "lading-s3-"));
    const server = await startS3rver(dir, "lading-registry");
    s3 = { server, dir };
    process.env.AWS_ACCESS_KEY_ID = "S3RVER";
    process.env.AWS_SECRET_ACCESS_KEY = "S3RVER";
    blobStore = `s3://lading-registry/blobs?endpoint=${server.endpoint}&region=us-east-1&forcePathStyle=true`;
  }
  const server = await startTestServer(
    pair.store,
    "acme",
    { ...config, blobStore },
    undefined,
    hooks,
  );
  const host = server.lading.registryAudience;
  const boot = await bootstrapOrganisation(server.lading.store.db, "public");
  return {
    server,
    registryUrl: server.lading.registryUrl,
    blobStore,
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
