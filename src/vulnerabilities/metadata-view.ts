import type { Kysely } from "kysely";
import type {
  MetadataSchema,
  OrgVulnerabilitiesTable,
  VulnerabilitiesTable,
} from "../store/metadata/index.ts";
import { rootOf } from "../uidp/index.ts";
import { publicAdvisoriesGroupUid } from "./public-advisories.ts";

/**
 * Whose vulnerability metadata a read sees or an import writes: `publicMetadata` for the
 * operator's rows alone, or an organisation's root group uid for its view (its private copies
 * over the public rows).
 */
export type MetadataOwner = string;

/** The operator's metadata, which everyone reads. */
export const publicMetadata: MetadataOwner = "";

/** Ids per IN list: under SQLite's bound-parameter limit (32,766) with room for the owner. */
const batch = 5000;

/**
 * The owner of the metadata an import into group `groupUid` writes, and of the view an
 * advisory of that group is shown in: the public rows for the public advisories group, the
 * group's organisation otherwise (docs/decisions.md, "Vulnerability metadata has an owner").
 */
export function metadataOwnerOf(groupUid: string): MetadataOwner {
  const root = rootOf(groupUid);
  return root === publicAdvisoriesGroupUid ? publicMetadata : root;
}

/**
 * What `owner` reads for one id, from the public row and the owner's copy: each field the
 * copy states (a non-empty text or list, a KEV entry, an EPSS date, a withdrawal) replaces the
 * public one, the aliases are both rows' together, and the rest is the public row's. The
 * operator's KEV and EPSS therefore stay in an organisation's view of an id it re-described.
 */
export function overlayMetadata(
  pub: VulnerabilitiesTable | undefined,
  own: VulnerabilitiesTable | undefined,
): VulnerabilitiesTable | undefined {
  if (!own) return pub;
  const mine = withoutOwner(own);
  if (!pub) return mine;
  const list = (a: string, b: string) => (a !== "[]" ? a : b);
  const epss = own.epss_date !== "" ? own : pub;
  const withdrawn = own.withdrawn_time !== null ? own : pub;
  const aliases = new Set([
    ...(JSON.parse(pub.aliases) as string[]),
    ...(JSON.parse(own.aliases) as string[]),
  ]);
  return {
    id: pub.id,
    summary: own.summary || pub.summary,
    details: own.details || pub.details,
    aliases: JSON.stringify([...aliases].sort()),
    references: list(own.references, pub.references),
    severities: list(own.severities, pub.severities),
    cwes: list(own.cwes, pub.cwes),
    published: own.published || pub.published,
    modified: own.modified || pub.modified,
    kev: own.kev || pub.kev,
    epss_score: epss.epss_score,
    epss_percentile: epss.epss_percentile,
    epss_date: epss.epss_date,
    withdrawn_time: withdrawn.withdrawn_time,
    withdrawn_reason: withdrawn.withdrawn_reason,
    // ISO timestamps sort as text: the earlier creation, the later update.
    create_time: [pub.create_time, own.create_time].sort()[0],
    update_time: [pub.update_time, own.update_time].sort()[1],
  };
}

function withoutOwner(row: VulnerabilitiesTable | OrgVulnerabilitiesTable): VulnerabilitiesTable {
  if (!("org_uid" in row)) return row;
  const { org_uid: _owner, ...rest } = row;
  return rest;
}

/** The metadata of `ids` in `owner`'s view, by id; ids nobody described are absent. */
export async function readMetadataView(
  db: Kysely<MetadataSchema>,
  ids: readonly string[],
  owner: MetadataOwner,
): Promise<Map<string, VulnerabilitiesTable>> {
  const unique = [...new Set(ids)];
  const pub = new Map<string, VulnerabilitiesTable>();
  const own = new Map<string, VulnerabilitiesTable>();
  for (let i = 0; i < unique.length; i += batch) {
    const part = unique.slice(i, i + batch);
    const [publicRows, ownRows] = await Promise.all([
      db.selectFrom("vulnerabilities").selectAll().where("id", "in", part).execute(),
      owner === publicMetadata
        ? []
        : db
            .selectFrom("org_vulnerabilities")
            .selectAll()
            .where("org_uid", "=", owner)
            .where("id", "in", part)
            .execute(),
    ]);
    for (const row of publicRows) pub.set(row.id, row);
    for (const row of ownRows) own.set(row.id, row);
  }
  const out = new Map<string, VulnerabilitiesTable>();
  for (const id of unique) {
    const row = overlayMetadata(pub.get(id), own.get(id));
    if (row) out.set(id, row);
  }
  return out;
}

/** The other ids of each of `ids` in `owner`'s view (public alias pairs and its own), by id. */
export async function readAliasView(
  db: Kysely<MetadataSchema>,
  ids: readonly string[],
  owner: MetadataOwner,
): Promise<Map<string, string[]>> {
  const unique = [...new Set(ids)];
  const sets = new Map<string, Set<string>>();
  for (let i = 0; i < unique.length; i += batch) {
    const part = unique.slice(i, i + batch);
    const [publicPairs, ownPairs] = await Promise.all([
      db
        .selectFrom("vulnerability_aliases")
        .select(["id", "alias"])
        .where("id", "in", part)
        .execute(),
      owner === publicMetadata
        ? []
        : db
            .selectFrom("org_vulnerability_aliases")
            .select(["id", "alias"])
            .where("org_uid", "=", owner)
            .where("id", "in", part)
            .execute(),
    ]);
    for (const { id, alias } of [...publicPairs, ...ownPairs]) {
      const set = sets.get(id) ?? new Set<string>();
      set.add(alias);
      sets.set(id, set);
    }
  }
  return new Map([...sets].map(([id, set]) => [id, [...set].sort()]));
}

/**
 * The severities column of `ids` in `owner`'s view, by id, as overlayMetadata gives it (the
 * owner's list when it states one): what advisory lists read, without the wide columns.
 */
export async function readSeverityView(
  db: Kysely<MetadataSchema>,
  ids: readonly string[],
  owner: MetadataOwner,
): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  const out = new Map<string, string>();
  for (let i = 0; i < unique.length; i += batch) {
    const part = unique.slice(i, i + batch);
    const [publicRows, ownRows] = await Promise.all([
      db
        .selectFrom("vulnerabilities")
        .select(["id", "severities"])
        .where("id", "in", part)
        .execute(),
      owner === publicMetadata
        ? []
        : db
            .selectFrom("org_vulnerabilities")
            .select(["id", "severities"])
            .where("org_uid", "=", owner)
            .where("id", "in", part)
            .execute(),
    ]);
    for (const row of publicRows) out.set(row.id, row.severities);
    for (const row of ownRows)
      if (row.severities !== "[]" || !out.has(row.id)) out.set(row.id, row.severities);
  }
  return out;
}
