import type { AccountAssociation } from "../gen/lading/iam/v2/account_associations_pb.js";
import type { Violations } from "../rpc/index.ts";

const AWS_ACCOUNT = /^\d{12}$/;
const GCP_PROJECT_ID = /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/;
const GCP_PROJECT_NUMBER = /^\d{1,20}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INT64_POSITIVE = /^[1-9]\d{0,18}$/;

/**
 * Checks the provider blocks of an account association: at least one, and every field of
 * each in its provider's format. Adds one violation per failing field.
 */
export function checkAccounts(v: Violations, a: AccountAssociation): void {
  if (!a.amazon && !a.google && !a.azure && !a.github) {
    v.add("account_association", "must set at least one of amazon, google, azure, github");
  }
  if (a.amazon && !AWS_ACCOUNT.test(a.amazon.account))
    v.add("amazon.account", "must be a 12-digit AWS account id");
  if (a.google) {
    if (!GCP_PROJECT_ID.test(a.google.projectId)) {
      v.add(
        "google.project_id",
        "must be 6 to 30 characters matching ^[a-z][a-z0-9-]{4,28}[a-z0-9]$",
      );
    }
    if (a.google.projectNumber !== "" && !GCP_PROJECT_NUMBER.test(a.google.projectNumber))
      v.add("google.project_number", "must be digits (at most 20)");
  }
  if (a.azure) {
    if (!UUID.test(a.azure.tenantId)) v.add("azure.tenant_id", "must be a UUID");
    for (const [name, id] of Object.entries(a.azure.clientIds)) {
      if (name === "" || name.length > 63 || !UUID.test(id)) {
        v.add("azure.client_ids", `entry "${name}": keys must be 1 to 63 characters, values UUIDs`);
      }
    }
  }
  if (a.github) checkGitHub(v, a.github.appInstallations);
}

function checkGitHub(
  v: Violations,
  apps: NonNullable<AccountAssociation["github"]>["appInstallations"],
): void {
  const field = "github.app_installations";
  const entries = Object.entries(apps);
  if (entries.length === 0) v.add(field, "must name at least one GitHub App id");
  for (const [appId, { installations }] of entries) {
    if (!INT64_POSITIVE.test(appId)) v.add(field, `app id ${appId} must be positive`);
    if (installations.length === 0)
      v.add(field, `app ${appId} must list at least one installation`);
    for (const i of installations) {
      if (i.installationId <= 0n) v.add(field, `app ${appId}: installation_id must be positive`);
      if (i.name.length > 256)
        v.add(field, `app ${appId}: installation name must be at most 256 characters`);
    }
  }
}
