import type { Kysely } from "kysely";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { type CapabilityName, capabilities } from "./capabilities.ts";

/** A root-level role every organisation can bind. */
export interface BuiltInRole {
  /** Fixed 40-hex uid, the same on every installation. */
  uid: string;
  name: string;
  description: string;
  /** Dotted names, in capability-list order. */
  capabilities: CapabilityName[];
}

const pick = (wanted: (name: CapabilityName) => boolean): CapabilityName[] =>
  capabilities.filter(wanted);
const oneOf = (...names: CapabilityName[]) => {
  const set = new Set<CapabilityName>(names);
  return (name: CapabilityName) => set.has(name);
};

const isViewer = (name: CapabilityName) => name.endsWith(".list") || name === "repo.blobs.get";
const isEditor = (name: CapabilityName) =>
  isViewer(name) ||
  oneOf(
    "repo.create",
    "repo.update",
    "repo.delete",
    "subscriptions.create",
    "subscriptions.update",
    "subscriptions.delete",
  )(name);
const isPull = oneOf(
  "groups.list",
  "repo.list",
  "repo.blobs.get",
  "manifest.list",
  "manifest.metadata.list",
  "referrers.list",
  "tag.list",
  "record_signatures.list",
  "sboms.list",
  "vuln_reports.list",
);
const isPush = (name: CapabilityName) =>
  isPull(name) ||
  oneOf(
    "repo.create",
    "repo.update",
    "repo.delete",
    "manifest.create",
    "manifest.update",
    "manifest.delete",
    "tag.create",
    "tag.update",
    "tag.delete",
    "groups.create",
  )(name);
const isPullTokenCreator = (name: CapabilityName) =>
  isPull(name) || oneOf("identity.create", "role_bindings.create", "roles.list")(name);

const isAdvisoriesPublisher = oneOf(
  "groups.list",
  "advisories.list",
  "advisories.create",
  "advisories.update",
);

/** Pulling one ecosystem's libraries: its repositories and the catalogue. */
const isLibrariesPull = (ecosystem: string) =>
  oneOf("groups.list", "libraries.artifacts.list", `libraries.${ecosystem}.list` as CapabilityName);
/** Pulling and publishing one ecosystem's libraries. */
const isLibrariesPush = (ecosystem: string) => (name: CapabilityName) =>
  isLibrariesPull(ecosystem)(name) || name === `libraries.${ecosystem}.create`;

/** The pull and push roles of one library ecosystem, with their fixed uids. */
const librariesRoles = (ecosystem: string, label: string, pullUid: string, pushUid: string) => [
  {
    uid: pullUid,
    name: `libraries.${ecosystem}.pull`,
    description: `Install ${label} libraries and read the catalogue.`,
    capabilities: pick(isLibrariesPull(ecosystem)),
  },
  {
    uid: pushUid,
    name: `libraries.${ecosystem}.push`,
    description: `Install and publish ${label} libraries.`,
    capabilities: pick(isLibrariesPush(ecosystem)),
  },
];

/**
 * The built-in roles (platform reference §4, cut to Lading's capabilities). The uids are fixed
 * literals (sha1 of `lading.role.<name>`, viewer's taken from the reference) so bindings made
 * on one installation mean the same on another.
 */
export const builtInRoles: readonly BuiltInRole[] = Object.freeze([
  {
    uid: "00d3b8b625086cbac9f72bacfda17437428058e4",
    name: "owner",
    description: "Full control of the group and everything below it.",
    capabilities: pick(() => true),
  },
  {
    uid: "a3eea068ac8917a4e8557fce595ddda2d6391edc",
    name: "editor",
    description: "Viewer, plus managing repositories and event subscriptions.",
    capabilities: pick(isEditor),
  },
  {
    uid: "63921b2c44617e3f2603851537be0123af4a57d7",
    name: "viewer",
    description: "Read everything, including pulling images; change nothing.",
    capabilities: pick(isViewer),
  },
  {
    uid: "5cb68e21494f5f35bdeffa1a24542addcf36ecea",
    name: "registry.pull",
    description: "Pull images and read their metadata, signatures and SBOMs.",
    capabilities: pick(isPull),
  },
  {
    uid: "3417683fcaefc9df9ac111fb2e1a0c6d78a4c5eb",
    name: "registry.push",
    description: "Pull and push images: create, move and delete repositories, manifests and tags.",
    capabilities: pick(isPush),
  },
  {
    uid: "fd6951513be4127cc60b229cc9a36aa564e5aba0",
    name: "registry.pull_token_creator",
    description: "Pull images and create pull-token identities bound to registry.pull.",
    capabilities: pick(isPullTokenCreator),
  },
  {
    uid: "5cfa2b11ce4e4917ea48f13b7696988283591b24",
    name: "advisories.publisher",
    description: "Read and publish the group's own advisories (lading advisories import).",
    capabilities: pick(isAdvisoriesPublisher),
  },
  ...librariesRoles(
    "python",
    "Python",
    "e43dd61636eb381ac9baf1179cfd3e36a8943c60",
    "c0f0316069880f8a95c46eb492910773ef4ce223",
  ),
  ...librariesRoles(
    "javascript",
    "JavaScript",
    "820859d8194d020efa7aa5b1936e40fcf8195fe3",
    "cba0f35013afe29cfd13a75d4ccca817eb17b8be",
  ),
  ...librariesRoles(
    "java",
    "Java",
    "590a3524807f1e787c96ae7645650cf0f149dea2",
    "cd0e69161d1506e610415117c4885f78daf248aa",
  ),
]);

/** The built-in role named `name`, if any. */
export function builtInRole(name: string): BuiltInRole | undefined {
  return builtInRoles.find((role) => role.name === name);
}

/** The fixed uid of the built-in role named `name`; throws for an unknown name. */
export function builtInRoleUid(name: string): string {
  const role = builtInRole(name);
  if (!role) throw new Error(`no built-in role ${name}`);
  return role.uid;
}

/**
 * Writes the built-in roles (parent_uid "") into the roles table. Run on every start: rows that
 * already match are left untouched, changed ones are brought up to date. One
 * `INSERT … ON CONFLICT DO UPDATE`, so replicas starting together on PostgreSQL cannot collide.
 */
export async function ensureBuiltInRoles(db: Kysely<MetadataSchema>): Promise<void> {
  const now = new Date().toISOString();
  await db
    .insertInto("roles")
    .values(
      builtInRoles.map((role) => ({
        uid: role.uid,
        parent_uid: "",
        name: role.name,
        description: role.description,
        capabilities: JSON.stringify(role.capabilities),
        create_time: now,
        update_time: now,
      })),
    )
    .onConflict((oc) =>
      oc
        .column("uid")
        .doUpdateSet((eb) => ({
          parent_uid: eb.ref("excluded.parent_uid"),
          name: eb.ref("excluded.name"),
          description: eb.ref("excluded.description"),
          capabilities: eb.ref("excluded.capabilities"),
          update_time: eb.ref("excluded.update_time"),
        }))
        .where((eb) =>
          eb.or([
            eb("roles.parent_uid", "!=", eb.ref("excluded.parent_uid")),
            eb("roles.name", "!=", eb.ref("excluded.name")),
            eb("roles.description", "!=", eb.ref("excluded.description")),
            eb("roles.capabilities", "!=", eb.ref("excluded.capabilities")),
          ]),
        ),
    )
    .execute();
}
