import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { createMetadataStore, type MetadataStoreOptions } from "../../src/store/metadata/index.ts";

/**
 * The PostgreSQL server the suites use: each suite creates its own database on it and drops it
 * afterwards. Override with LADING_TEST_POSTGRES_URL.
 */
export const postgresAdminUrl =
  process.env.LADING_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** A fresh, empty metadata store location for one suite, and how to remove it. */
export interface TestStore {
  name: "sqlite" | "postgres";
  options: MetadataStoreOptions;
  /** Removes the database or the data directory. */
  drop(): Promise<void>;
}

/** Both dialects, so every metadata suite runs on each. */
export const storeKinds = ["sqlite", "postgres"] as const;

/** Creates an empty store of `kind`. */
export async function createTestStore(kind: "sqlite" | "postgres"): Promise<TestStore> {
  const dataDir = mkdtempSync(join(tmpdir(), "lading-test-"));
  if (kind === "sqlite") {
    return {
      name: kind,
      options: { dataDir },
      async drop() {
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const database = `lading_test_${process.pid}_${Math.random().toString(16).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: postgresAdminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${database}`;
  return {
    name: kind,
    options: { dataDir, databaseUrl: url.toString() },
    async drop() {
      const client = new pg.Client({ connectionString: postgresAdminUrl });
      await client.connect();
      // The store's pool may still be closing its connections: wait for them rather than
      // terminate them, which would fail a suite still shutting down.
      for (let attempt = 0; ; attempt++) {
        try {
          await client.query(
            `DROP DATABASE IF EXISTS ${database}${attempt < 50 ? "" : " WITH (FORCE)"}`,
          );
          break;
        } catch (error) {
          if ((error as { code?: string }).code !== "55006") throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      await client.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Opens and migrates a fresh store of `kind`; for unit suites that need only the database. */
export async function openTestStore(kind: "sqlite" | "postgres") {
  const location = await createTestStore(kind);
  const store = createMetadataStore(location.options);
  await store.migrate();
  return {
    store,
    options: location.options,
    async close() {
      await store.close();
      await location.drop();
    },
  };
}
