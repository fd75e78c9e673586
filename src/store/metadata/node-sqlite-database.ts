import type { DatabaseSync, SQLInputValue, SQLOutputValue, StatementSync } from "node:sqlite";
import type { SqliteDatabase, SqliteStatement } from "kysely";

/**
 * `database` (Node's built-in `node:sqlite`) as the database Kysely's SQLite dialect drives.
 * Kysely 0.28 ships no driver for `node:sqlite`; its dialect was written for an addon whose
 * statements say whether they return rows and take their parameters as one array.
 * `onChange` is called as each statement that may change something starts (see isPureRead).
 */
export function nodeSqliteDatabase(
  database: DatabaseSync,
  onChange: () => void = () => undefined,
): SqliteDatabase {
  return {
    prepare: (sql) =>
      new NodeSqliteStatement(database.prepare(sql), isPureRead(sql) ? undefined : onChange),
    close: () => database.close(),
  };
}

/**
 * Whether `sql` only reads: a plain SELECT. Anything else, a CTE that reads included, counts as
 * a change: a change counted that was none costs a cache miss, a change missed a stale answer.
 */
export function isPureRead(sql: string): boolean {
  return /^\s*select\b/i.test(sql);
}

type Row = Record<string, SQLOutputValue>;

class NodeSqliteStatement implements SqliteStatement {
  readonly reader: boolean;
  readonly #statement: StatementSync;
  readonly #names: string[];
  readonly #onChange: (() => void) | undefined;

  constructor(statement: StatementSync, onChange: (() => void) | undefined) {
    this.#statement = statement;
    this.#onChange = onChange;
    this.#names = statement.columns().map((column) => column.name);
    // A statement that returns columns (SELECT, RETURNING, most PRAGMAs) is read with `all`,
    // any other is run for its changes.
    this.reader = this.#names.length > 0;
    // Rows are read as arrays and made into objects here: measured faster than the objects
    // node:sqlite builds (which name every column of every row anew), and the rows get
    // Object's prototype like any other object, where node:sqlite's have none.
    statement.setReturnArrays(true);
  }

  all(parameters: readonly unknown[]): unknown[] {
    this.#onChange?.();
    const rows = this.#statement.all(
      ...(parameters as SQLInputValue[]),
    ) as unknown as SQLOutputValue[][];
    return rows.map((values) => this.#row(values));
  }

  run(parameters: readonly unknown[]): {
    changes: number | bigint;
    lastInsertRowid: number | bigint;
  } {
    this.#onChange?.();
    return this.#statement.run(...(parameters as SQLInputValue[]));
  }

  *iterate(parameters: readonly unknown[]): IterableIterator<unknown> {
    this.#onChange?.();
    for (const values of this.#statement.iterate(...(parameters as SQLInputValue[]))) {
      yield this.#row(values as unknown as SQLOutputValue[]);
    }
  }

  #row(values: SQLOutputValue[]): Row {
    const row: Row = {};
    const names = this.#names;
    // As SQLite's own object rows: a later column of the same name wins.
    for (let i = 0; i < names.length; i++) row[names[i]] = values[i];
    return row;
  }
}
