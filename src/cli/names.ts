import {
  type ApiClient,
  CliError,
  createApiClient,
  type Json,
  type Query,
  uidPath,
} from "./api-client.ts";
import { type CliContext, UsageError } from "./cli-context.ts";
import type { Column } from "./output.ts";

/** Whether `text` is a uid (40 hex, or a child uid with slashes) rather than a name. */
export function looksLikeUid(text: string): boolean {
  return /^[0-9a-f]{40}(\/[0-9a-f]{16})*$/.test(text);
}

/** Most matches a name lookup reads: a name that matches more is refused as too vague. */
const maxCandidates = 200;

/** The rows of one page of `path` (at most `maxCandidates`). */
async function candidates(api: ApiClient, path: string, key: string, query: Query) {
  const answer = await api.get(path, { ...query, page_size: maxCandidates });
  return (answer[key] as Json[] | undefined) ?? [];
}

/**
 * The uid of the one row in `rows` that `text` names: none is "no such", several list every
 * candidate with its uid so the caller can give the one meant.
 */
export function chooseOne(
  kind: string,
  text: string,
  rows: Json[],
  label: (row: Json) => string = (row) => String(row.name ?? ""),
): string {
  if (rows.length === 1) return String(rows[0].uid);
  if (rows.length === 0) throw new CliError([`lading: no ${kind} named "${text}"`]);
  return ambiguous(kind, text, rows, label);
}

function ambiguous(kind: string, text: string, rows: Json[], label: (row: Json) => string): never {
  throw new CliError([
    `lading: ${rows.length} ${kind.replace(/([^aeiou])y$/, "$1ie")}s are named "${text}"; give one of these uids instead:`,
    ...rows.map((row) => `  ${row.uid}  ${label(row)}`),
  ]);
}

const isRoot = (row: Json) => !String(row.uid).includes("/");

/**
 * The uid of a group given as a uid, a path of names from its organisation
 * (`acme/team-a`), or one name: an organisation of that name first, else the only group of
 * that name the caller sees.
 */
export async function resolveGroup(api: ApiClient, text: string): Promise<string> {
  if (looksLikeUid(text)) return text;
  const [first, ...rest] = text.split("/");
  if (!first) throw new UsageError(`expected a group uid or name, got "${text}"`);
  const named = await candidates(api, "/iam/v2/groups", "groups", { name: first });
  const roots = named.filter(isRoot);
  let uid =
    roots.length > 0 || rest.length > 0
      ? chooseOne("organisation", first, roots)
      : chooseOne("group", first, named, (g) => `(in ${parentUid(g)})`);
  let path = first;
  for (const name of rest) {
    path = `${path}/${name}`;
    const children = await candidates(api, "/iam/v2/groups", "groups", {
      name,
      "uidp.children_of": uid,
    });
    uid = chooseOne("group", path, children);
  }
  return uid;
}

/** The uid of group `text`; a name needs the API (and a sign-in), a uid does not. */
export function groupUid(ctx: CliContext, text: string): Promise<string> {
  return looksLikeUid(text) ? Promise.resolve(text) : resolveGroup(createApiClient(ctx), text);
}

/** The uid of an organisation (a root group) given as its uid or name. */
export async function resolveOrganisation(api: ApiClient, text: string): Promise<string> {
  if (looksLikeUid(text)) return text;
  const named = await candidates(api, "/iam/v2/groups", "groups", { name: text });
  return chooseOne("organisation", text, named.filter(isRoot));
}

function parentUid(row: Json): string {
  const uid = String(row.uid);
  return uid.slice(0, uid.lastIndexOf("/"));
}

/** A named resource kept under a group: its collection, list key and what people call it. */
interface NamedCollection {
  kind: string;
  path: string;
  key: string;
}

/**
 * The uid of a named child of a group, given as a uid, `<group path>/<name>`, or a name the
 * caller sees only once.
 */
async function resolveNamed(api: ApiClient, of: NamedCollection, text: string): Promise<string> {
  if (looksLikeUid(text)) return text;
  const slash = text.lastIndexOf("/");
  if (slash === 0 || slash === text.length - 1) {
    throw new UsageError(`expected a ${of.kind} uid, name or <group>/<name>, got "${text}"`);
  }
  if (slash < 0) {
    const rows = await candidates(api, of.path, of.key, { name: text });
    return chooseOne(of.kind, text, rows, (r) => `(in ${parentUid(r)})`);
  }
  const group = await resolveGroup(api, text.slice(0, slash));
  const name = text.slice(slash + 1);
  const rows = await candidates(api, of.path, of.key, { name, "uidp.children_of": group });
  return chooseOne(of.kind, text, rows);
}

/** The uid of an identity: a uid, its name, or `<group path>/<name>`. */
export const resolveIdentity = (api: ApiClient, text: string) =>
  resolveNamed(api, { kind: "identity", path: "/iam/v2/identities", key: "identities" }, text);

/** The uid of an identity provider: a uid, its name, or `<group path>/<name>`. */
export const resolveIdentityProvider = (api: ApiClient, text: string) =>
  resolveNamed(
    api,
    { kind: "identity provider", path: "/iam/v2/identityProviders", key: "identityProviders" },
    text,
  );

/** The uid of an account association: a uid, its name, or `<group path>/<name>`. */
export const resolveAccountAssociation = (api: ApiClient, text: string) =>
  resolveNamed(
    api,
    {
      kind: "account association",
      path: "/iam/v2/accountAssociations",
      key: "accountAssociations",
    },
    text,
  );

/**
 * The uid of a role: a uid, `<group path>/<name>` for a custom role, or a name, where a
 * built-in role wins over custom roles of the same name.
 */
export async function resolveRole(api: ApiClient, text: string): Promise<string> {
  if (looksLikeUid(text) || text.includes("/")) {
    return resolveNamed(api, { kind: "role", path: "/iam/v2/roles", key: "roles" }, text);
  }
  const roles = await candidates(api, "/iam/v2/roles", "roles", { name: text });
  const builtIn = roles.find(isRoot);
  if (builtIn) return String(builtIn.uid);
  return chooseOne("role", text, roles, (r) => `(in ${parentUid(r)})`);
}

/** The uid of a repository: a uid or its registry path `<org>/<image>`. */
export async function resolveRepo(api: ApiClient, text: string): Promise<string> {
  if (looksLikeUid(text)) return text;
  const slash = text.indexOf("/");
  if (slash <= 0 || slash === text.length - 1) {
    throw new UsageError(`expected a repo uid or <org>/<image>, got "${text}"`);
  }
  const org = await resolveOrganisation(api, text.slice(0, slash));
  const repos = await candidates(api, "/registry/v2/repos", "repos", {
    name: text.slice(slash + 1),
    "uidp.descendants_of": org,
  });
  if (repos.length === 0) throw new CliError([`lading: no repository ${text}`]);
  return chooseOne("repository", text, repos);
}

/** The uid of a tag: a uid or `<org>/<image>:<tag>`. */
export async function resolveTag(api: ApiClient, text: string): Promise<string> {
  if (looksLikeUid(text)) return text;
  const colon = text.lastIndexOf(":");
  if (colon <= text.lastIndexOf("/") || colon === text.length - 1) {
    throw new UsageError(`expected a tag uid or <org>/<image>:<tag>, got "${text}"`);
  }
  const repo = await resolveRepo(api, text.slice(0, colon));
  const tags = await candidates(api, "/registry/v2/tags", "tags", {
    name: text.slice(colon + 1),
    "uidp.children_of": repo,
  });
  if (tags.length === 0) throw new CliError([`lading: no tag ${text}`]);
  return chooseOne("tag", text, tags);
}

/** Where a package lookup may look. */
export interface PackageScope {
  /** `ECOSYSTEM_PYTHON` and the like. */
  ecosystems: string[];
  /** An organisation uid. */
  org?: string;
}

/** Pages a package-name lookup reads before asking for a narrower one. */
const maxPackagePages = 5;

/**
 * The id of a library package: its id (`<ecosystem>:<org uid>:<name>`) or its name, unique
 * among the packages the caller sees in `scope`.
 */
export async function resolvePackage(
  api: ApiClient,
  text: string,
  scope: PackageScope,
): Promise<string> {
  if (/^[a-z]+:[0-9a-f]{40}:/.test(text)) return text;
  const matches: Json[] = [];
  let token = "";
  for (let page = 0; page < maxPackagePages; page++) {
    const answer = await api.get("/libraries/v2/artifacts", {
      ecosystems: scope.ecosystems,
      parent: scope.org,
      query: text.toLowerCase(),
      page_size: maxCandidates,
      page_token: token,
    });
    for (const row of (answer.artifacts as Json[] | undefined) ?? []) {
      if (row.name === text || row.displayName === text) matches.push(row);
    }
    token = String(answer.nextPageToken ?? "");
    if (!token) break;
  }
  if (token && matches.length === 0) {
    throw new CliError([
      `lading: too many packages contain "${text}"; narrow with --ecosystem or --org, or give its id`,
    ]);
  }
  return chooseOne("package", text, matches, (r) => {
    const ecosystem = String(r.ecosystem ?? "").replace(/^ECOSYSTEM_/, "");
    return `(${ecosystem.toLowerCase()}, organisation ${r.parent})`;
  });
}

/** Distinct uids a table looks up names for at most; beyond it the rest show as uids. */
const maxNameLookups = 50;

/** A uid field of a row and the collection whose `GET /<uid>` names it. */
export interface NamedField {
  /** The field of the row holding the uid. */
  field: string;
  /** e.g. "/iam/v2/roles". */
  collection: string;
}

/** The key under which `withNames` puts the name of `field`. */
export const nameKey = (field: string) => `${field}:name`;

/**
 * The rows with the names of the uids in `fields` added (under `nameKey(field)`), for tables:
 * one GET per distinct uid; a uid the caller cannot read keeps showing as the uid.
 */
export async function withNames(api: ApiClient, rows: Json[], fields: NamedField[]) {
  const names = new Map<string, Promise<string | undefined>>();
  const nameOf = (collection: string, uid: string) => {
    const key = `${collection}/${uid}`;
    if (!names.has(key) && names.size < maxNameLookups) {
      const read = api.get(`${collection}/${uidPath(uid)}`).then(
        (row) => (typeof row.name === "string" && row.name ? row.name : undefined),
        () => undefined,
      );
      names.set(key, read);
    }
    return names.get(key) ?? Promise.resolve(undefined);
  };
  return Promise.all(
    rows.map(async (row) => {
      const out: Json = { ...row };
      for (const { field, collection } of fields) {
        const uid = row[field];
        if (typeof uid === "string" && looksLikeUid(uid)) {
          out[nameKey(field)] = await nameOf(collection, uid);
        }
      }
      return out;
    }),
  );
}

/** A column showing the name `withNames` found for the uid in `field`, else the uid. */
export function namedColumn(header: string, field: string): Column {
  return { header, value: (row) => String(row[nameKey(field)] ?? row[field] ?? "") };
}
