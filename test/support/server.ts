import type { Logger } from "pino";
import {
  bootstrapOrganisation,
  type LadingHooks,
  type RunningLading,
  startLading,
} from "../../src/app/index.ts";
import { type ConfigInput, resolveConfig } from "../../src/config/index.ts";
import { createLogger } from "../../src/server/index.ts";
import { createTestStore, type TestStore } from "./stores.ts";

/** A real Lading server on port 0 over a fresh store, with one bootstrapped organisation. */
export interface TestServer {
  lading: RunningLading;
  apiUrl: string;
  store: TestStore;
  org: { groupUid: string; identityUid: string; token: string };
  /** Mints a token for `identityUid` (API audience unless given). */
  token(identityUid: string, options?: { audience?: string; ttlSeconds?: number }): Promise<string>;
  close(): Promise<void>;
}

/** Starts a server on a fresh store of `kind` and bootstraps organisation `org`. */
export async function startTestServer(
  kind: "sqlite" | "postgres",
  org = "acme",
  extra: ConfigInput = {},
  log: Logger = createLogger({ level: "silent" }),
  hooks: LadingHooks = {},
): Promise<TestServer> {
  const store = await createTestStore(kind);
  const config = resolveConfig(
    {
      dataDir: store.options.dataDir,
      databaseUrl: store.options.databaseUrl,
      apiListen: "127.0.0.1:0",
      registryListen: "127.0.0.1:0",
      ...extra,
    },
    {},
  );
  const lading = await startLading(config, log, hooks);
  const token = (identityUid: string, options: { audience?: string; ttlSeconds?: number } = {}) =>
    lading.tokens.mint({
      subject: identityUid,
      audience: options.audience ?? lading.apiUrl,
      ttlSeconds: options.ttlSeconds ?? 600,
    });
  const boot = await bootstrapOrganisation(lading.store.db, org, { apiUrl: lading.apiUrl });
  return {
    lading,
    apiUrl: lading.apiUrl,
    store,
    org: { ...boot, token: await token(boot.identityUid) },
    token,
    async close() {
      await lading.close({ timeoutMs: 2000 });
      await store.drop();
    },
  };
}
