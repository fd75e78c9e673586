import type { Kysely } from "kysely";
import { failedPrecondition, type LadingError } from "../errors/index.ts";
import type { MetadataSchema, TagPoliciesTable } from "../store/metadata/index.ts";
import { registryDomain } from "./registry-context.ts";
import { tagMatches } from "./tag-patterns.ts";

/** What a policy does, as stored. */
export type TagPolicyKindName = "immutable" | "keep_newest" | "not_pushed" | "not_pulled";

/** The uid itself and every ancestor: the parents whose policies reach it. */
export function selfAndAncestors(uid: string): string[] {
  const parts = uid.split("/");
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
}

/** The policies of `kinds` that apply to the tags of repo `repoUid` (its own and inherited). */
export async function policiesFor(
  db: Kysely<MetadataSchema>,
  repoUid: string,
  kinds: readonly TagPolicyKindName[],
): Promise<TagPoliciesTable[]> {
  return db
    .selectFrom("tag_policies")
    .selectAll()
    .where("parent_uid", "in", selfAndAncestors(repoUid))
    .where("kind", "in", [...kinds])
    .orderBy("uid")
    .execute();
}

/** An immutability rule that holds a tag. */
export interface ImmutableHold {
  tag: string;
  rule: TagPoliciesTable;
}

/** The first of `tags` of repo `repoUid` an immutability rule holds, if any. */
export async function immutableHold(
  db: Kysely<MetadataSchema>,
  repoUid: string,
  tags: readonly string[],
): Promise<ImmutableHold | undefined> {
  if (tags.length === 0) return undefined;
  const rules = await policiesFor(db, repoUid, ["immutable"]);
  for (const tag of tags) {
    const rule = rules.find((r) => tagMatches(r.pattern, tag));
    if (rule) return { tag, rule };
  }
  return undefined;
}

/** The sentence both the registry and the API give for a refused change of an immutable tag. */
export function immutableMessage(hold: ImmutableHold, change: string): string {
  return `tag "${hold.tag}" is immutable (rule ${hold.rule.uid} on pattern "${hold.rule.pattern}"): it cannot be ${change}`;
}

/** FAILED_PRECONDITION for the API. */
export function immutableTagError(hold: ImmutableHold, change: string): LadingError {
  const description = immutableMessage(hold, change);
  return failedPrecondition(registryDomain, description, [
    { type: "TAG_IMMUTABLE", subject: hold.tag, description },
  ]);
}
