import { CapabilitySchema } from "../gen/lading/iam/v2/capabilities_pb.js";

/**
 * Every capability in its dotted form, in the order of the `lading.iam.v2.Capability` enum
 * (CAP_UNSPECIFIED excluded). The dotted form is what roles store and what `Grants` takes.
 */
export const capabilities = [
  "groups.create",
  "groups.update",
  "groups.list",
  "groups.delete",
  "group_invites.create",
  "group_invites.list",
  "group_invites.delete",
  "roles.create",
  "roles.update",
  "roles.list",
  "roles.delete",
  "role_bindings.create",
  "role_bindings.update",
  "role_bindings.list",
  "role_bindings.delete",
  "identity.create",
  "identity.update",
  "identity.list",
  "identity.delete",
  "identity_providers.create",
  "identity_providers.update",
  "identity_providers.list",
  "identity_providers.delete",
  "account_associations.create",
  "account_associations.update",
  "account_associations.list",
  "account_associations.delete",
  "repo.create",
  "repo.update",
  "repo.list",
  "repo.delete",
  "repo.blobs.get",
  "manifest.create",
  "manifest.update",
  "manifest.list",
  "manifest.delete",
  "manifest.metadata.list",
  "tag.create",
  "tag.update",
  "tag.list",
  "tag.delete",
  "referrers.list",
  "record_signatures.list",
  "sboms.list",
  "vuln_reports.list",
  "terms.accept",
  "terms.list",
  "subscriptions.create",
  "subscriptions.update",
  "subscriptions.list",
  "subscriptions.delete",
  "advisories.list",
  "advisories.create",
  "advisories.update",
  "advisories.delete",
  "vuln_report.list",
  "libraries.artifacts.list",
  "libraries.python.list",
  "libraries.python.create",
  "libraries.javascript.list",
  "libraries.javascript.create",
  "libraries.java.list",
  "libraries.java.create",
] as const;

/** A dotted capability name, e.g. `repo.list`. */
export type CapabilityName = (typeof capabilities)[number];

const toEnum = new Map<string, number>();
const fromEnum = new Map<number, CapabilityName>();
for (const name of capabilities) {
  const wire = `CAP_${name.toUpperCase().replaceAll(".", "_")}`;
  const value = CapabilitySchema.values.find((v) => v.name === wire);
  if (!value) throw new Error(`capability ${name} has no enum value ${wire}`);
  toEnum.set(name, value.number);
  fromEnum.set(value.number, name);
}

/** True when `name` is a known dotted capability name. */
export function isCapability(name: string): name is CapabilityName {
  return toEnum.has(name);
}

/** The `lading.iam.v2.Capability` enum number of a dotted name; undefined when unknown. */
export function capabilityToEnum(dotted: string): number | undefined {
  return toEnum.get(dotted);
}

/** The dotted name of a `lading.iam.v2.Capability` number; undefined for 0 and unknown values. */
export function capabilityFromEnum(value: number): string | undefined {
  return fromEnum.get(value);
}
