import { invalidArgument } from "../errors/index.ts";
import { StorageService } from "../gen/lading/lifecycle/v2/storage_pb.js";
import { type RegistryContext, repoResource } from "../registry/index.ts";
import { type BoundService, bindService, requireParentGroup } from "../rpc/index.ts";
import { isUidp, rootOf } from "../uidp/index.ts";
import { quotaOf } from "./quota.ts";
import { storageUsage } from "./usage.ts";

/** The error domain of lifecycle API errors: lifecycle.lading.dev. */
export const lifecycleDomain = "lifecycle";

/** The StorageService: bytes per organisation and per repo, and the organisation's quota. */
export function createStorageService(ctx: RegistryContext): BoundService {
  const { db } = ctx;
  return bindService(StorageService, {
    async getOrganizationStorage(req, call) {
      if (!isUidp(req.org) || rootOf(req.org) !== req.org) {
        throw invalidArgument(lifecycleDomain, [
          { field: "org", description: "must be the uid of an organisation (a root group)" },
        ]);
      }
      // A caller who may not see the organisation gets NOT_FOUND, one who sees it without
      // repo.list PERMISSION_DENIED, as for any group.
      await requireParentGroup(db, call, req.org, "repo.list", lifecycleDomain);
      const used = await storageUsage(db, { orgUid: req.org });
      const quota = await quotaOf(db, req.org);
      return {
        org: req.org,
        bytes: BigInt(used.bytes),
        objects: BigInt(used.objects),
        quotaBytes: BigInt(quota ?? 0),
        hasQuota: quota !== undefined,
      };
    },

    async getRepoStorage(req, call) {
      const repo = await repoResource.get(ctx, call, req.uid);
      const used = await storageUsage(db, { repoUid: repo.uid });
      return { uid: repo.uid, bytes: BigInt(used.bytes), objects: BigInt(used.objects) };
    },
  });
}
