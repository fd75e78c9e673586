import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import {
  Kysely,
  Migrator,
  PostgresDialect,
  type SqliteDatabase,
  SqliteDialect,
  type SqliteStatement,
  sql,
} from "kysely";
import pg from "pg";
import { AmbientDialect, registerAmbient } from "./ambient-transactions.ts";
import { migrationProvider } from "./migrations/index.ts";
import { namingPool } from "./named-statements.ts";
import { nodeSqliteDatabase } from "./node-sqlite-database.ts";
import { keepPostgresStatistics } from "./postgres-statistics.ts";
import type { MetadataSchema } from "./schema.ts";
import { keepStatistics, type StatisticsKeeper } from "./sqlite-statistics.ts";

/** Where metadata lives. */
export interface MetadataStoreOptions {
  /**
   * `postgres://…` selects PostgreSQL. Absent: embedded SQLite at `<dataDir>/lading.db`,
   * so a laptop needs no database server.
   */
  databaseUrl?: string;
  /** Directory for the embedded SQLite file. */
  dataDir: string;
  /** PostgreSQL pool size. Default 10: enough for one replica on a small machine. */
  poolSize?: number;
  /**
   * Whether this store keeps the planner's statistics (ANALYZE on SQLite, VACUUM ANALYZE on
   * PostgreSQL). Default true; a worker thread's second store leaves it to the server's.
   */
  keepStatistics?: boolean;
}

/** An open metadata store. */
export interface MetadataStore {
  db: Kysely<MetadataSchema>;
  dialect: "sqlite" | "postgres";
  /** The PostgreSQL pool's connections now; undefined on SQLite. */
  poolStats(): { total: number; idle: number; waiting: number } | undefined;
  /** Runs pending migrations; safe to call on every start and from several replicas. */
  migrate(): Promise<string[]>;
  /**
   * Gives back the memory SQLite's page cache holds (up to 64 MiB), for when a burst of work
   * is over; the cache fills again as requests need it. Nothing to do on PostgreSQL.
   */
  releaseMemory(): Promise<void>;
  /**
   * On SQLite, a mark that differs from every earlier one once anything may have changed in
   * the database since: a statement other than a SELECT on this process's connection, or a
   * commit on any other connection (another thread's or process's: SQLite's data_version).
   * What was read under a mark still holds while the mark is the same. Undefined on PostgreSQL,
   * whose changes come from other replicas unannounced, and before the first query.
   */
  changeMark(): string | undefined;
  close(): Promise<void>;
}

/** Opens the metadata store named by `options`. */
export function createMetadataStore(options: MetadataStoreOptions): MetadataStore {
  const url = options.databaseUrl;
  if (url && !/^postgres(ql)?:\/\//.test(url)) {
    throw new Error("database URL must start with postgres:// or postgresql://");
  }
  const kind = url ? "postgres" : "sqlite";
  let statistics: StatisticsKeeper | undefined;
  let changes = 0;
  let dataVersion: StatementSync | undefined;
  const pool = url ? openPool(url, options.poolSize ?? 10) : undefined;
  // SQLite has a second writer: the pull event writer thread (workerPullWriter).
  const dialect = pool
    ? new AmbientDialect(new PostgresDialect({ pool: namingPool(pool) }))
    : new AmbientDialect(
        new SqliteDialect({
          database: () => {
            const database = openSqlite(options.dataDir);
            if (options.keepStatistics !== false) statistics = keepStatistics(database);
            dataVersion = database.prepare("PRAGMA data_version");
            dataVersion.setReturnArrays(true);
            const counted = nodeSqliteDatabase(database, () => {
              changes++;
            });
            return Promise.resolve(cachingStatements(counted));
          },
        }),
        { begin: "begin immediate" },
      );
  const db = new Kysely<MetadataSchema>({ dialect });
  registerAmbient(db, dialect);
  const postgresStatistics =
    pool && options.keepStatistics !== false
      ? keepPostgresStatistics(db as Kysely<unknown>)
      : undefined;
  return {
    db,
    dialect: kind,
    poolStats: () =>
      pool && { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount },
    async migrate() {
      const migrator = new Migrator({ db, provider: migrationProvider });
      const { error, results } = await migrator.migrateToLatest();
      if (error) throw error;
      // New tables and indexes want statistics before the first request plans against them.
      statistics?.check(Number.POSITIVE_INFINITY);
      return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
    },
    async releaseMemory() {
      if (!pool) await sql`PRAGMA shrink_memory`.execute(db);
    },
    changeMark() {
      if (!dataVersion) return undefined;
      const [version] = dataVersion.get() as unknown as [number];
      return `${version}.${changes}`;
    },
    async close() {
      dataVersion = undefined;
      statistics?.stop();
      await postgresStatistics?.stop();
      return db.destroy();
    },
  };
}

/**
 * A pool that survives PostgreSQL restarts: an idle connection that dies is dropped from the
 * pool (and reported) instead of crashing the process; queries in flight fail and are retried
 * by their callers.
 */
function openPool(connectionString: string, max: number): pg.Pool {
  // JIT compiling a query costs 10-50 ms and pays off only for long analytic scans; Lading's
  // queries are short, and a count over a large table would otherwise cross jit_above_cost and
  // turn into a latency spike.
  const pool = new pg.Pool({ connectionString, max, options: "-c jit=off" });
  pool.on("error", (error) => {
    process.emitWarning(`PostgreSQL connection lost: ${error.message}`);
  });
  return pool;
}

/** Prepared statements kept per SQLite database; enough for every query shape the server uses. */
const statementCacheSize = 512;

/**
 * `database` with its prepared statements reused by SQL text (least recently used first out).
 * Kysely's SQLite driver prepares every query afresh, which costs more than running the small
 * indexed lookups of a request. Sharing a statement is safe: the driver runs one query at a time
 * on its single connection, and `node:sqlite` resets a statement each time it runs, also after an
 * abandoned `iterate`. SQLite re-prepares a cached statement by itself when the schema changes.
 */
export function cachingStatements(database: SqliteDatabase): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    prepare(sql) {
      let statement = statements.get(sql);
      if (statement) {
        statements.delete(sql);
      } else {
        statement = database.prepare(sql);
        if (statements.size >= statementCacheSize) {
          statements.delete(statements.keys().next().value as string);
        }
      }
      statements.set(sql, statement);
      return statement;
    },
    close: () => database.close(),
  };
}

function openSqlite(dataDir: string): DatabaseSync {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const database = new DatabaseSync(join(dataDir, "lading.db"), {
    enableForeignKeyConstraints: true,
    timeout: 5000,
  });
  // 64 MiB of page cache instead of SQLite's 2 MiB: bulk imports write to several indexes of
  // tables with 100,000s of rows, and the small default makes every batch re-read them.
  database.exec(`PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    PRAGMA cache_size = -65536;
    PRAGMA wal_autocheckpoint = 16384;`);
  return database;
}
