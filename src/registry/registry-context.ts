import type { Kysely } from "kysely";
import type { ListEngine } from "../lists/index.ts";
import type { BlobStore } from "../store/blobs/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";
import type { TermsGate } from "./terms-gate.ts";

/** What the registry management services share. */
export interface RegistryContext {
  db: Kysely<MetadataSchema>;
  lists: ListEngine;
  /** Where manifest and config bytes are read from (Images). */
  blobs: BlobStore;
  /** Refuses reading manifests until the required terms are accepted; absent means none. */
  termsGate?: TermsGate;
}

/** The error domain of registry API errors: registry.lading.dev. */
export const registryDomain = "registry";

/** Sortable fields of repos and tags. */
export const registrySortFields = {
  uid: { column: "uid" },
  name: { column: "name" },
  created_at: { column: "create_time" },
  updated_at: { column: "update_time" },
} as const;

const REPO_NAME = /^[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*(\/[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*)*$/;
const TAG_NAME = /^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}$/;

/** Longest registry path `<organisation name>/<repo name>` (OCI distribution-spec). */
export const maxRepoPathLength = 255;

/** Largest readme accepted, in UTF-8 bytes. */
export const maxReadmeBytes = 256 * 1024;

/** True for an OCI repository name: path components joined by "/". */
export function isRepoName(name: string): boolean {
  return REPO_NAME.test(name);
}

/** True for an OCI tag name. */
export function isTagName(name: string): boolean {
  return TAG_NAME.test(name);
}

/** True for an organisation name: a single OCI path component of at most 63 characters. */
export function isOrgName(name: string): boolean {
  return name.length <= 63 && !name.includes("/") && REPO_NAME.test(name);
}

/** True for a whole registry path `<org>/<repo name>` of at most 255 characters. */
export function isRegistryPath(path: string): boolean {
  return path.length <= maxRepoPathLength && path.includes("/") && REPO_NAME.test(path);
}
