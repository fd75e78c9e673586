import type { Compilable, CompiledQuery, Kysely } from "kysely";
import { nameStatement } from "./named-statements.ts";
import type { MetadataSchema } from "./schema.ts";

type Db = Kysely<MetadataSchema>;

const placeholder = (i: number) => `\u0000lading-parameter-${i}`;

/**
 * A fixed-shape query, built and compiled once per database, then run with new values: on the
 * registry's hot paths, building and compiling a Kysely query cost more CPU than SQLite needs to
 * answer it from an index. `build` must use each argument as a bound value only, never as SQL
 * text or to choose the query's shape; compiling checks that every argument became a parameter.
 * `named`: PostgreSQL keeps it prepared on each connection ({@link nameStatement}).
 */
export function precompiled<A extends string[], O>(
  build: (db: Db, ...args: A) => Compilable<O>,
  options: { named?: boolean } = {},
): (db: Db, ...args: A) => Promise<O[]> {
  /** Per database: the compiled query, and for each of its parameters the argument it takes. */
  const compiled = new WeakMap<Db, { query: CompiledQuery<O>; argumentAt: number[] }>();
  const compile = (db: Db, arity: number) => {
    const placeholders = Array.from({ length: arity }, (_, i) => placeholder(i)) as A;
    const query = build(db, ...placeholders).compile();
    for (const value of placeholders) {
      if (!query.parameters.includes(value) || query.sql.includes(value)) {
        throw new Error(`precompiled query: an argument is not a bound parameter in ${query.sql}`);
      }
    }
    if (options.named) nameStatement(query.sql);
    const argumentAt = query.parameters.map((value) => placeholders.indexOf(value as string));
    const entry = { query, argumentAt };
    compiled.set(db, entry);
    return entry;
  };
  return async (db, ...args) => {
    const { query, argumentAt } = compiled.get(db) ?? compile(db, args.length);
    const parameters = query.parameters.map((value, i) =>
      argumentAt[i] < 0 ? value : args[argumentAt[i]],
    );
    return (await db.executeQuery<O>({ ...query, parameters })).rows;
  };
}
