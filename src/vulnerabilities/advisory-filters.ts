import { type Expression, type SqlBool, sql } from "kysely";
import type { FieldViolation } from "../errors/index.ts";
import type { ListAdvisoriesRequest } from "../gen/lading/vulnerabilities/v2/advisories_pb.js";
import type { AnyBuilder } from "../lists/index.ts";
import { eventTypeName } from "./advisory-message.ts";
import { isAdvisoryId } from "./feeds/advisory-id.ts";
import { eventBit } from "./import/advisory-row.ts";

/** Most values one repeated filter takes. */
export const maxFilterValues = 1000;
/** Longest `query`. */
export const maxQueryLength = 256;

/**
 * The values of a repeated filter: the parameter given several times, a comma-separated
 * value, or both (docs/decisions.md); blanks dropped, duplicates removed.
 */
export function splitValues(values: readonly string[]): string[] {
  const out = new Set<string>();
  for (const value of values) {
    for (const part of value.split(",")) {
      const trimmed = part.trim();
      if (trimmed !== "") out.add(trimmed);
    }
  }
  return [...out];
}

/** The list conditions of a ListAdvisories request, or the violations of its filters. */
export interface AdvisoryConditions {
  binding: unknown;
  where: (eb: AnyBuilder) => Expression<SqlBool>;
  /** Only "not withdrawn": the live counters give the total. */
  counted: boolean;
  /** Set when `query` is the only filter: the search index can count the matches. */
  search?: { query: string; showWithdrawn: boolean };
}

/** Builds the conditions of `req`'s filters; `{ error }` lists every bad filter. */
export function advisoryConditions(
  req: ListAdvisoriesRequest,
  dialect: "sqlite" | "postgres",
): {
  value?: AdvisoryConditions;
  error?: FieldViolation[];
} {
  const violations: FieldViolation[] = [];
  const sets: Record<string, string[]> = {
    advisory_id: splitValues(req.advisoryIds),
    artifact_name: splitValues(req.artifactNames),
    artifact_type: splitValues(req.artifactTypes),
    artifact_architecture: splitValues(req.artifactArchitectures),
    component_name: splitValues(req.componentNames),
  };
  const fieldOf: Record<string, string> = {
    advisory_id: "advisory_ids",
    artifact_name: "artifact_names",
    artifact_type: "artifact_types",
    artifact_architecture: "artifact_architectures",
    component_name: "component_names",
  };
  for (const [column, values] of Object.entries(sets)) {
    if (values.length > maxFilterValues) {
      violations.push({
        field: fieldOf[column],
        description: `takes at most ${maxFilterValues} values`,
      });
    }
  }
  const badIds = sets.advisory_id.filter((id) => !isAdvisoryId(id));
  if (badIds.length > 0) {
    violations.push({
      field: "advisory_ids",
      description: `must be CGA ids (CGA-xxxx-xxxx-xxxx over 23456789cfghjmpqrvwx); not ${JSON.stringify(badIds[0])}`,
    });
  }
  const aliases = splitValues(req.aliases);
  if (aliases.length > maxFilterValues) {
    violations.push({ field: "aliases", description: `takes at most ${maxFilterValues} values` });
  }
  let mask = 0;
  for (const value of req.eventTypes) {
    const name = eventTypeName(value);
    if (!name)
      violations.push({
        field: "event_types",
        description: "must be event types other than EVENT_TYPE_UNSPECIFIED",
      });
    else mask |= eventBit(name);
  }
  const latest = req.latestEventType === 0 ? undefined : eventTypeName(req.latestEventType);
  if (req.latestEventType !== 0 && !latest) {
    violations.push({ field: "latest_event_type", description: "must be an event type" });
  }
  const query = req.query.toLowerCase();
  if (query.length > maxQueryLength) {
    violations.push({
      field: "query",
      description: `must be at most ${maxQueryLength} characters`,
    });
  }
  if (violations.length > 0) return { error: violations };

  const binding = [sets, aliases, mask, latest ?? "", query, req.showWithdrawn];
  const where = (eb: AnyBuilder): Expression<SqlBool> => {
    const terms: Expression<SqlBool>[] = [];
    for (const [column, values] of Object.entries(sets)) {
      if (values.length > 0) terms.push(eb(column, "in", values));
    }
    if (aliases.length > 0) {
      terms.push(
        eb(
          "uid",
          "in",
          eb.selectFrom("advisory_aliases").select("advisory_uid").where("alias", "in", aliases),
        ),
      );
    }
    if (mask !== 0) terms.push(sql<SqlBool>`(event_mask & ${mask}) <> 0`);
    if (latest) terms.push(eb("latest_event_type", "=", latest));
    if (query !== "") {
      // search_text is lower-cased already: a plain substring test is all that is needed, and
      // both instr (SQLite) and strpos (PostgreSQL) are much cheaper than LIKE.
      terms.push(
        dialect === "postgres"
          ? sql<SqlBool>`strpos(search_text, ${query}) > 0`
          : sql<SqlBool>`instr(search_text, ${query}) > 0`,
      );
    }
    if (!req.showWithdrawn) terms.push(eb("withdrawn_time", "is", null));
    return terms.length > 0 ? eb.and(terms) : sql<SqlBool>`1 = 1`;
  };
  const counted =
    Object.values(sets).every((v) => v.length === 0) &&
    aliases.length === 0 &&
    mask === 0 &&
    !latest &&
    query === "" &&
    !req.showWithdrawn;
  const others =
    Object.values(sets).some((v) => v.length > 0) || aliases.length > 0 || mask !== 0 || !!latest;
  const search = query !== "" && !others ? { query, showWithdrawn: req.showWithdrawn } : undefined;
  return { value: { binding, where, counted, search } };
}
