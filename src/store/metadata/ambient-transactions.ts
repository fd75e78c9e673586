import { AsyncLocalStorage } from "node:async_hooks";
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type TransactionSettings,
} from "kysely";

/** The transaction a piece of asynchronous work runs in. */
interface Ambient {
  connection: DatabaseConnection;
  /** False once the transaction ended: late queries of its context then get their own connection. */
  active: boolean;
  /** Names of the savepoints open for nested `db.transaction()` calls, innermost last. */
  savepoints: string[];
  nextSavepoint: number;
  /** Settles when the query running on the connection ends: queries of the context take turns. */
  turn: Promise<void>;
  /** Run once the transaction committed (see afterCommit). */
  committed: (() => void)[];
}

/** A connection lent to a query of the ambient transaction; releasing it does nothing. */
interface Borrowed extends DatabaseConnection {
  ambient: Ambient;
}

/**
 * A driver whose connections are those of the ambient transaction when one is active in the
 * calling async context. So every query a request handler makes through the one shared `db`
 * joins the transaction `runInTransaction` opened around it, with no handler passing a
 * transaction object; a nested `db.transaction()` becomes a savepoint instead of failing (or,
 * on SQLite's single connection, waiting forever for the connection its own caller holds).
 */
class AmbientDriver implements Driver {
  readonly #inner: Driver;
  readonly #begin: string | undefined;
  readonly #context = new AsyncLocalStorage<Ambient>();
  #initialised: Promise<void> | undefined;

  constructor(inner: Driver, begin: string | undefined) {
    this.#inner = inner;
    this.#begin = begin;
  }

  /** Opens a transaction with the dialect's own statement, or the driver's default one. */
  #beginOn(connection: DatabaseConnection, settings: TransactionSettings) {
    if (this.#begin === undefined) return this.#inner.beginTransaction(connection, settings);
    return connection.executeQuery(CompiledQuery.raw(this.#begin)).then(() => undefined);
  }

  init() {
    this.#initialised ??= this.#inner.init().catch((error: unknown) => {
      this.#initialised = undefined;
      throw error;
    });
    return this.#initialised;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const ambient = this.#context.getStore();
    if (!ambient?.active) return this.#inner.acquireConnection();
    const { connection } = ambient;
    const borrowed: Borrowed = {
      ambient,
      async executeQuery(query) {
        const release = await takeTurn(ambient);
        try {
          return await connection.executeQuery(query);
        } finally {
          release();
        }
      },
      // A stream holds the connection until it ends: no other query of the context runs meanwhile.
      async *streamQuery(query, chunkSize) {
        const release = await takeTurn(ambient);
        try {
          yield* connection.streamQuery(query, chunkSize);
        } finally {
          release();
        }
      },
    };
    return borrowed;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    const ambient = borrowedFrom(connection);
    if (!ambient) return this.#beginOn(connection, settings);
    const name = `lading_nested_${ambient.nextSavepoint++}`;
    ambient.savepoints.push(name);
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${name}`));
  }

  async commitTransaction(connection: DatabaseConnection) {
    const ambient = borrowedFrom(connection);
    if (!ambient) return this.#inner.commitTransaction(connection);
    const name = ambient.savepoints.pop();
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${name}`));
  }

  async rollbackTransaction(connection: DatabaseConnection) {
    const ambient = borrowedFrom(connection);
    if (!ambient) return this.#inner.rollbackTransaction(connection);
    const name = ambient.savepoints.pop();
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${name}`));
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${name}`));
  }

  async releaseConnection(connection: DatabaseConnection) {
    if (borrowedFrom(connection)) return;
    return this.#inner.releaseConnection(connection);
  }

  destroy() {
    return this.#inner.destroy();
  }

  /** Runs `task` once the ambient transaction commits (never if it rolls back), or now. */
  afterCommit(task: () => void): void {
    const ambient = this.#context.getStore();
    if (ambient?.active) ambient.committed.push(task);
    else task();
  }

  /** Whether the calling context is inside an ambient transaction. */
  active(): boolean {
    return this.#context.getStore()?.active === true;
  }

  /** Runs `work` in a transaction that every query of its async context joins. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#context.getStore()?.active) return work();
    await this.init();
    const connection = await this.#inner.acquireConnection();
    const ambient: Ambient = {
      connection,
      active: true,
      savepoints: [],
      nextSavepoint: 0,
      turn: Promise.resolve(),
      committed: [],
    };
    try {
      await this.#beginOn(connection, {});
      let result: T;
      try {
        result = await this.#context.run(ambient, work);
      } catch (error) {
        ambient.active = false;
        await this.#inner.rollbackTransaction(connection);
        throw error;
      }
      ambient.active = false;
      await this.#inner.commitTransaction(connection);
      for (const task of ambient.committed) task();
      return result;
    } finally {
      ambient.active = false;
      await this.#inner.releaseConnection(connection);
    }
  }
}

/**
 * Waits for the queries of `ambient` started before, then holds the connection until released:
 * handlers run queries in parallel (Promise.all), and one connection runs one query at a time
 * (node-postgres only queues them, with a deprecation warning).
 */
async function takeTurn(ambient: Ambient): Promise<() => void> {
  const previous = ambient.turn;
  let release = () => {};
  ambient.turn = new Promise<void>((resolve) => {
    release = resolve;
  });
  await previous;
  return release;
}

function borrowedFrom(connection: DatabaseConnection): Ambient | undefined {
  return (connection as Partial<Borrowed>).ambient;
}

/** `dialect` with ambient transactions (see AmbientDriver). */
export class AmbientDialect implements Dialect {
  readonly #inner: Dialect;
  readonly #begin: string | undefined;
  driver: AmbientDriver | undefined;

  /**
   * `begin` replaces the statement that opens a transaction: SQLite's `begin immediate` takes
   * the write lock at once, waiting for another connection's writer, where a plain `begin` that
   * reads first fails at its first write (SQLITE_BUSY, without waiting) when another connection
   * committed in between.
   */
  constructor(inner: Dialect, options: { begin?: string } = {}) {
    this.#inner = inner;
    this.#begin = options.begin;
  }

  createDriver(): Driver {
    this.driver = new AmbientDriver(this.#inner.createDriver(), this.#begin);
    return this.driver;
  }
  createQueryCompiler() {
    return this.#inner.createQueryCompiler();
  }
  createAdapter() {
    return this.#inner.createAdapter();
  }
  createIntrospector(db: Kysely<unknown>) {
    return this.#inner.createIntrospector(db);
  }
}

const dialects = new WeakMap<object, AmbientDialect>();

/** Remembers that `db` was built on `dialect`, for runInTransaction. */
export function registerAmbient(db: object, dialect: AmbientDialect): void {
  dialects.set(db, dialect);
}

/**
 * Runs `work` in one database transaction that every query made through `db` in its async
 * context joins, including those of code that knows nothing of it; commits when `work`
 * resolves and rolls back when it throws. Nested calls join the outer transaction. A `db` not
 * opened by createMetadataStore gets an ordinary transaction passed to `work`.
 */
export async function runInTransaction<DB, T>(
  db: Kysely<DB>,
  work: (db: Kysely<DB>) => Promise<T>,
): Promise<T> {
  const driver = dialects.get(db)?.driver;
  if (!driver) return db.transaction().execute((trx) => work(trx));
  return driver.run(() => work(db));
}

/** Whether the calling context runs inside a runInTransaction of `db`. */
export function inTransaction(db: object): boolean {
  return dialects.get(db)?.driver?.active() ?? false;
}

/**
 * Runs `task` once the transaction of the calling context (runInTransaction) has committed, or
 * at once outside one: for caches that must not reload the old state before the new one is
 * visible to other connections.
 */
export function afterCommit(db: object, task: () => void): void {
  const driver = dialects.get(db)?.driver;
  if (driver) driver.afterCommit(task);
  else task();
}
