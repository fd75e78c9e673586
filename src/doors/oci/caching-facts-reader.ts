import type { Kysely } from "kysely";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import { type AccessFacts, type AccessQuery, readAccessFacts } from "./access-facts.ts";

/** Characters of facts kept at most (repo readmes can be large); then the cache starts over. */
const maxCachedChars = 4 * 1024 * 1024;

/**
 * `readAccessFacts` that answers again what it read under the same change mark (the store's
 * `changeMark`): on SQLite, where every change to the database, from this process or another,
 * changes the mark, so an answer is reused only while nothing at all has changed and a
 * revoked binding, a moved tag or a deleted identity shows on the very next request. Each
 * request still checks the mark (one statement instead of four) and decides from the facts
 * exactly as before; time-dependent checks (identity and token expiry) run every time.
 *
 * Without a mark (PostgreSQL) nothing is kept, but requests asking the same in one turn of the
 * event loop share one read, started once that turn's requests have arrived: every request it
 * answers came before it began, so each sees the database as it was when it arrived, or later.
 * The facts handed out are frozen: requests share them.
 */
export function cachingFactsReader(
  db: Kysely<MetadataSchema>,
  changeMark: (() => string | undefined) | undefined,
): (query: AccessQuery) => Promise<AccessFacts> {
  const entries = new Map<string, { mark: string; facts: AccessFacts }>();
  let chars = 0;
  /** Reads not started yet, by key: requests that ask the same before one starts share it. */
  const gathering = new Map<string, Promise<AccessFacts>>();
  const sharedRead = (key: string, query: AccessQuery) => {
    let read = gathering.get(key);
    if (!read) {
      read = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        // From here on the read is under way: a request that comes now waits for the next one.
        gathering.delete(key);
        return readAccessFacts(db, query).then(frozen);
      });
      gathering.set(key, read);
    }
    return read;
  };
  return async (query) => {
    const m = query.manifest;
    const key = `${query.identity} ${query.bindings} ${query.path} ${m ? `${m.byDigest ? "@" : ":"}${m.reference}` : ""}`;
    // Taken before reading: whatever changes while the read is under way changes the mark too,
    // and the entry is never used.
    const mark = changeMark?.();
    if (mark === undefined) return sharedRead(key, query);
    const hit = entries.get(key);
    if (hit?.mark === mark) return hit.facts;
    const facts = await sharedRead(`${mark} ${key}`, query);
    // Requests that shared the read all come here; the entry may have changed meanwhile.
    const replaced = entries.get(key);
    if (replaced) chars -= key.length + sizeOf(replaced.facts);
    const size = key.length + sizeOf(facts);
    if (chars + size > maxCachedChars) {
      entries.clear();
      chars = 0;
    }
    entries.set(key, { mark, facts });
    chars += size;
    return facts;
  };
}

function frozen(facts: AccessFacts): AccessFacts {
  if (facts.identity) Object.freeze(facts.identity);
  for (const binding of facts.bindings) Object.freeze(binding);
  Object.freeze(facts.bindings);
  if (facts.target.repo) Object.freeze(facts.target.repo);
  Object.freeze(facts.target);
  if (facts.manifest) Object.freeze(facts.manifest);
  return Object.freeze(facts);
}

/** About how many characters `facts` hold: the readme and description dominate. */
function sizeOf(facts: AccessFacts): number {
  const repo = facts.target.repo;
  const bindings = facts.bindings.reduce((n, b) => n + (b.capabilities?.length ?? 0) + 64, 0);
  return 256 + bindings + (repo ? repo.readme.length + repo.description.length : 0);
}
