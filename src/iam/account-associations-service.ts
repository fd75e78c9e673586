import { create, fromJson, type JsonObject, toJson } from "@bufbuild/protobuf";
import { alreadyExists, invalidArgument } from "../errors/index.ts";
import {
  type AccountAssociation,
  AccountAssociationSchema,
  AccountAssociationsService,
} from "../gen/lading/iam/v2/account_associations_pb.js";
import {
  type BoundService,
  bindService,
  defineResource,
  now,
  updatePaths,
  Violations,
} from "../rpc/index.ts";
import { type AccountAssociationsTable, isUniqueViolation } from "../store/metadata/index.ts";
import { parentOf } from "../uidp/index.ts";
import { checkAccounts } from "./account-checks.ts";
import { type IamContext, iamDomain, namedSortFields } from "./iam-context.ts";
import { requireParentGroup } from "./visible-rows.ts";

/** Account associations as the API lists and gets them; one is keyed by its group's uid. */
export const accountAssociationResource = defineResource({
  table: "account_associations",
  domain: iamDomain,
  type: "account association",
  see: "account_associations.list",
  grantsAt: "row",
  sortFields: namedSortFields,
  toMessage: accountAssociationFromRow,
});

const blocks = ["amazon", "google", "azure", "github"] as const;
type Block = (typeof blocks)[number];

const leafPaths = [
  "amazon.account",
  "google.project_id",
  "google.project_number",
  "azure.tenant_id",
  "azure.client_ids",
  "github.app_installations",
];

const fields = {
  updatable: ["name", "description", ...leafPaths],
  outputOnly: ["uid", "create_time", "update_time"],
};

/** The provider blocks alone, as stored in the `accounts` column (proto3 JSON). */
function accountsJson(message: AccountAssociation): string {
  const only = create(AccountAssociationSchema);
  for (const b of blocks) (only as Record<Block, unknown>)[b] = message[b];
  return JSON.stringify(toJson(AccountAssociationSchema, only));
}

/** Converts a stored row to the API message. */
export function accountAssociationFromRow(row: AccountAssociationsTable): AccountAssociation {
  const message = fromJson(AccountAssociationSchema, JSON.parse(row.accounts) as JsonObject);
  message.uid = row.uid;
  message.name = row.name;
  message.description = row.description;
  message.createTime = row.create_time;
  message.updateTime = row.update_time;
  return message;
}

/** True when the leaf `path` (e.g. `azure.client_ids`) of `message` is set and not empty. */
function hasLeaf(message: AccountAssociation, path: string): boolean {
  const [block, leaf] = path.split(".") as [Block, string];
  const camel = leaf.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  const value = (message[block] as Record<string, unknown> | undefined)?.[camel];
  if (typeof value === "string") return value !== "";
  return value !== undefined && Object.keys(value as object).length > 0;
}

/** Sets the leaf `path` (e.g. `google.project_id`) of `target` from `input`. */
function setLeaf(target: AccountAssociation, input: AccountAssociation, path: string): void {
  const [block, leaf] = path.split(".") as [Block, string];
  const camel = leaf.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  const field = AccountAssociationSchema.field[block];
  const blank = create(field.message as never) as Record<string, unknown>;
  const from = (input[block] as Record<string, unknown> | undefined) ?? blank;
  const into = (target[block] as Record<string, unknown> | undefined) ?? blank;
  into[camel] = from[camel];
  (target as Record<Block, unknown>)[block] = into;
}

function check(v: Violations, message: AccountAssociation): void {
  v.name("name", message.name).description("description", message.description);
  checkAccounts(v, message);
}

/** The AccountAssociationsService implementation: at most one association per group. */
export function createAccountAssociationsService(ctx: IamContext): BoundService {
  const { db } = ctx;

  return bindService(AccountAssociationsService, {
    async listAccountAssociations(req, call) {
      const page = await accountAssociationResource.list(ctx, call, req, { name: req.name });
      return { ...page, accountAssociations: page.items };
    },

    async getAccountAssociation(req, call) {
      return accountAssociationResource.get(ctx, call, req.uid);
    },

    async createAccountAssociation(req, call) {
      const input = req.accountAssociation ?? create(AccountAssociationSchema);
      const v = new Violations().uid("parent", req.parent);
      if (!v.empty) throw invalidArgument(iamDomain, v.list);
      await requireParentGroup(ctx, call, req.parent, "account_associations.create");
      check(v, input);
      if (!v.empty) throw invalidArgument(iamDomain, v.list);
      const time = now();
      const row: AccountAssociationsTable = {
        uid: req.parent,
        parent_uid: parentOf(req.parent),
        name: input.name,
        description: input.description,
        accounts: accountsJson(input),
        create_time: time,
        update_time: time,
      };
      try {
        await db.insertInto("account_associations").values(row).execute();
      } catch (error) {
        if (isUniqueViolation(error))
          throw alreadyExists(iamDomain, `group ${req.parent} already has an account association`);
        throw error;
      }
      return accountAssociationFromRow(row);
    },

    async updateAccountAssociation(req, call) {
      const input = req.accountAssociation ?? create(AccountAssociationSchema);
      const row = await accountAssociationResource.load(ctx, call, input.uid, {
        field: "account_association.uid",
        act: "account_associations.update",
      });
      const paths = updatePaths(iamDomain, req.updateMask, call, fields, () => {
        const set: string[] = [];
        if (input.name) set.push("name");
        if (input.description) set.push("description");
        for (const path of leafPaths) if (hasLeaf(input, path)) set.push(path);
        return set;
      });
      if (paths.size === 0) return accountAssociationFromRow(row);
      const next = accountAssociationFromRow(row);
      if (paths.has("name")) next.name = input.name;
      if (paths.has("description")) next.description = input.description;
      for (const path of leafPaths) if (paths.has(path)) setLeaf(next, input, path);
      for (const b of blocks) {
        if (paths.has(b) && !input[b]) (next as Record<Block, unknown>)[b] = undefined;
      }
      const v = new Violations();
      check(v, next);
      if (!v.empty) throw invalidArgument(iamDomain, v.list);
      const changes = {
        name: next.name,
        description: next.description,
        accounts: accountsJson(next),
        update_time: now(),
      };
      await db
        .updateTable("account_associations")
        .set(changes)
        .where("uid", "=", row.uid)
        .execute();
      return accountAssociationFromRow({ ...row, ...changes });
    },

    async deleteAccountAssociation(req, call) {
      const row = await accountAssociationResource.load(ctx, call, req.uid, {
        act: "account_associations.delete",
      });
      await db.deleteFrom("account_associations").where("uid", "=", row.uid).execute();
      return {};
    },
  });
}
