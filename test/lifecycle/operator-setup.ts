import { after, before } from "node:test";
import { type CliRunner, cliRunner } from "../cli/cli-support.ts";
import {
  type RegistryPair,
  type RegistryTestServer,
  startRegistryServer,
} from "../support/registry-server.ts";

/** A registry without a scheduled collector, and the operator's CLI pointed at its stores. */
export interface OperatorSetup {
  readonly reg: RegistryTestServer;
  readonly cli: CliRunner;
  /** `--data-dir …` and, where used, `--database-url` and `--blob-store`: `lading admin` flags. */
  readonly store: string[];
}

/** Registers before/after hooks that start and stop an {@link OperatorSetup} on `pair`. */
export function operatorSetup(pair: RegistryPair): OperatorSetup {
  let reg: RegistryTestServer | undefined;
  let cli: CliRunner | undefined;
  let store: string[] = [];
  before(async () => {
    reg = await startRegistryServer(pair, { gcInterval: "off" });
    const options = reg.server.store.options;
    store = ["--data-dir", options.dataDir];
    if (options.databaseUrl) store.push("--database-url", options.databaseUrl);
    if (reg.blobStore) store.push("--blob-store", reg.blobStore);
    cli = await cliRunner({ AWS_ACCESS_KEY_ID: "S3RVER", AWS_SECRET_ACCESS_KEY: "S3RVER" });
  });
  after(async () => {
    await reg?.close();
    await cli?.cleanup();
  });
  return {
    get reg() {
      if (!reg) throw new Error("the registry is not started");
      return reg;
    },
    get cli() {
      if (!cli) throw new Error("the CLI runner is not ready");
      return cli;
    },
    get store() {
      return store;
    },
  };
}
