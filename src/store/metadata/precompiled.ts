import type { Compilable, CompiledQuery, Kysely } from "kysely";
import type { MetadataSchema } from "./schema.ts";

type Db = Kysely<MetadataSchema>;

const placeholder = (i: number) => `\u0000lading-parameter-${i}`;

/**
 * A fixed-shape query, built and compiled once per database, then run with new values: on the
 * registry's hot paths, building and compiling a Kysely query cost more CPU than SQLite needs to
 * answer it from an index. `build` must use each argument as a bound value only, never as SQL
 * text or to choose the query's shape; compiling checks that every argument became a parameter.
 */
export function precompiled<A extends string[], O>(
  build: (db: Db, ...args: A) => Compilable<O>,
): (db: Db, ...args: A) => Promise<O[]> {
  const compiled = new WeakMap<Db, CompiledQuery<O>>();
  const compile = (db: Db, arity: number) => {
    const placeholders = Array.from({ length: arity }, (_, i) => placeholder(i)) as A;
    const query = build(db, ...placeholders).compile();
    for (const value of placeholders) {
      if (!query.parameters.includes(value) || query.sql.includes(value)) {
        throw new Error(`precompiled query: an argument is not a bound parameter in ${query.sql}`);
      }
    }
    compiled.set(db, query);
    return query;
  };
  return async (db, ...args) => {
    const query = compiled.get(db) ?? compile(db, args.length);
    const parameters = query.parameters.map((value) => {
      const i = typeof value === "string" ? placeholderIndex(value) : -1;
      return i < 0 ? value : args[i];
    });
    return (await db.executeQuery<O>({ ...query, parameters })).rows;
  };
}

function placeholderIndex(value: string): number {
  const prefix = placeholder(0).slice(0, -1);
  return value.startsWith(prefix) ? Number(value.slice(prefix.length)) : -1;
}
