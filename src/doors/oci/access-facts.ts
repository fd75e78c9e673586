import { type Kysely, PostgresAdapter, sql } from "kysely";
import { type BindingRow, bindingsOf, type IdentityRow, identityOf } from "../../auth/index.ts";
import { type RepoPath, resolveRepoPath } from "../../registry/registry-access.ts";
import { type MetadataSchema, precompiled, type ReposTable } from "../../store/metadata/index.ts";

/** A manifest as a GET answers it. */
export interface ManifestRow {
  digest: string;
  media_type: string;
  size: string | number | bigint;
}

/** Everything authorising one registry request reads, and the manifest it asks for. */
export interface AccessFacts {
  /** The caller's identity row; undefined when none was asked for or it is gone. */
  identity: IdentityRow | undefined;
  /** The caller's role bindings; empty when none were asked for. */
  bindings: BindingRow[];
  target: RepoPath;
  /** The manifest named by the request, when one was asked for and the repo holds it. */
  manifest: ManifestRow | undefined;
}

/** What to read: `identity` and `bindings` are identity uids, "" for none. */
export interface AccessQuery {
  identity: string;
  bindings: string;
  path: string;
  /** A manifest of the repo: by tag or by digest. */
  manifest?: { reference: string; byDigest: boolean };
}

/** One row of the union below: its kind, then up to eight text columns. */
interface FactRow {
  k: "i" | "b" | "o" | "r" | "m";
  a: string;
  b: string | null;
  c: string | null;
  d: string | null;
  e: string | null;
  f: string | null;
  g: string | null;
  h: string | null;
}

// On PostgreSQL each kind of fact is a branch of one UNION ALL, a named prepared statement, so
// one round trip answers them all and no request plans it (issue 24 item 4): the identity, its
// bindings (each with its role's capabilities as a scalar subquery, as the authenticator reads
// them), the organisation, the repo (once, in a CTE) and, when asked, the manifest (by tag, the
// tag's digest as a scalar subquery). On SQLite, whose queries are calls in the process, the
// separate lookups cost half the CPU of the union: there they stay.
const base = (i: string, b: string, org: string, repo: string) => sql`
with r as (
  select uid, parent_uid, root_uid, name, description, readme, create_time, update_time from repos
  where root_uid = (select uid from groups where parent_uid = '' and name = ${org}) and name = ${repo}
)
select 'i' as k, uid as a, parent_uid as b, expire_time as c, null as d, null as e, null as f,
  null as g, null as h
from identities where uid = ${i}
union all
select 'b', parent_uid,
  (select capabilities from roles where roles.uid = role_bindings.role_uid),
  null, null, null, null, null, null
from role_bindings where identity_uid = ${b}
union all
select 'o', uid, null, null, null, null, null, null, null
from groups where parent_uid = '' and name = ${org}
union all
select 'r', uid, parent_uid, root_uid, name, description, readme, create_time, update_time from r`;

const manifestColumns = sql`select 'm', digest, media_type, cast(size as text), null, null, null,
  null, null from manifests where repo_uid = (select uid from r)`;

const named = { named: true };

const withoutManifest = precompiled((db, i: string, b: string, org: string, repo: string) => {
  const raw = sql<FactRow>`${base(i, b, org, repo)}`;
  return { compile: () => raw.compile(db) };
}, named);

const withTag = precompiled((db, i: string, b: string, org: string, repo: string, tag: string) => {
  const raw = sql<FactRow>`${base(i, b, org, repo)}
union all
${manifestColumns}
  and digest = (select digest from tags where parent_uid = (select uid from r) and name = ${tag})`;
  return { compile: () => raw.compile(db) };
}, named);

const withDigest = precompiled(
  (db, i: string, b: string, org: string, repo: string, digest: string) => {
    const raw = sql<FactRow>`${base(i, b, org, repo)}
union all
${manifestColumns} and digest = ${digest}`;
    return { compile: () => raw.compile(db) };
  },
  named,
);

const manifestByDigest = precompiled((db, repoUid: string, digest: string) =>
  db
    .selectFrom("manifests")
    .select(["digest", "media_type", "size"])
    .where("repo_uid", "=", repoUid)
    .where("digest", "=", digest),
);

/** By tag in one query: the tag's digest is a scalar subquery (faster in SQLite than a join). */
const manifestByTag = precompiled((db, repoUid: string, tag: string) =>
  db
    .selectFrom("manifests")
    .select(["digest", "media_type", "size"])
    .where("repo_uid", "=", repoUid)
    .where(
      "digest",
      "=",
      db
        .selectFrom("tags")
        .select("digest")
        .where("parent_uid", "=", repoUid)
        .where("name", "=", tag),
    ),
);

/**
 * Reads (on PostgreSQL in one statement) what authorising a request on `query.path` needs (the identity, its
 * role bindings, the organisation and the repo) and the manifest the request names. Nothing
 * here decides anything: the caller checks the facts exactly as the separate reads were checked.
 */
export function readAccessFacts(
  db: Kysely<MetadataSchema>,
  query: AccessQuery,
): Promise<AccessFacts> {
  return db.getExecutor().adapter instanceof PostgresAdapter
    ? readAtOnce(db, query)
    : readApart(db, query);
}

async function readApart(db: Kysely<MetadataSchema>, query: AccessQuery): Promise<AccessFacts> {
  const [identity] = query.identity ? await identityOf(db, query.identity) : [];
  const bindings = query.bindings ? await bindingsOf(db, query.bindings) : [];
  const target = await resolveRepoPath(db, query.path);
  const m = query.manifest;
  const lookup = m?.byDigest ? manifestByDigest : manifestByTag;
  const [manifest] = m && target.repo ? await lookup(db, target.repo.uid, m.reference) : [];
  return { identity, bindings, target, manifest };
}

async function readAtOnce(db: Kysely<MetadataSchema>, query: AccessQuery): Promise<AccessFacts> {
  const { path } = query;
  const slash = path.indexOf("/");
  const orgName = slash < 0 ? path : path.slice(0, slash);
  const repoName = slash < 0 ? "" : path.slice(slash + 1);
  const args = [query.identity, query.bindings, orgName, repoName] as const;
  const m = query.manifest;
  const rows = !m
    ? await withoutManifest(db, ...args)
    : await (m.byDigest ? withDigest : withTag)(db, ...args, m.reference);
  const facts: AccessFacts = {
    identity: undefined,
    bindings: [],
    target: { path, orgName, repoName, orgUid: undefined, repo: undefined },
    manifest: undefined,
  };
  for (const row of rows) {
    if (row.k === "i") {
      facts.identity = { uid: row.a, parent_uid: row.b as string, expire_time: row.c };
    } else if (row.k === "b") {
      facts.bindings.push({ groupUid: row.a, capabilities: row.b });
    } else if (row.k === "o") {
      facts.target.orgUid ??= row.a;
    } else if (row.k === "r" && repoName) {
      facts.target.repo = repoOf(row);
    } else if (row.k === "m") {
      facts.manifest = { digest: row.a, media_type: row.b as string, size: row.c as string };
    }
  }
  // A repo's organisation is its root group, as resolveRepoPath answers.
  if (facts.target.repo) facts.target.orgUid = facts.target.repo.root_uid;
  return facts;
}

function repoOf(row: FactRow): ReposTable {
  return {
    uid: row.a,
    parent_uid: row.b as string,
    root_uid: row.c as string,
    name: row.d as string,
    description: row.e as string,
    readme: row.f as string,
    create_time: row.g as string,
    update_time: row.h as string,
  };
}
