import { type Expression, type Kysely, PostgresAdapter, type SqlBool, sql } from "kysely";
import { invalidArgument, notFound } from "../errors/index.ts";
import {
  ArtifactsService,
  type Ecosystem as EcosystemEnum,
} from "../gen/lading/libraries/v2/libraries_pb.js";
import type { ListEngine, ListSpec } from "../lists/index.ts";
import { type BoundService, bindService, type Call, scopesOf, Violations } from "../rpc/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { maxQueryLength } from "../vulnerabilities/advisory-filters.ts";
import {
  artifactFromRow,
  ecosystemEnums,
  ecosystemOf,
  versionFromRow,
} from "./artifact-messages.ts";
import { type Ecosystem, parseArtifactUid } from "./ecosystems.ts";
import { versionAdvisories } from "./version-advisories.ts";

/** What the catalogue needs. */
export interface LibrariesContext {
  db: Kysely<MetadataSchema>;
  lists: ListEngine;
  /** The public organisation's name: its artifacts are visible to every signed-in caller. */
  publicOrg: string;
}

/** The error domain of Libraries API errors. */
export const librariesDomain = "libraries";

/** The capability that shows an organisation's artifacts in the catalogue. */
const listCapability = "libraries.artifacts.list";

const artifactsSpec: ListSpec<"library_artifacts"> = {
  table: "library_artifacts",
  domain: librariesDomain,
  fields: {
    name: { column: "name" },
    created_at: { column: "create_time" },
    updated_at: { column: "update_time" },
    update_time: { column: "update_time" },
    uid: { column: "uid" },
  },
  defaultField: "name",
  uncounted: true,
};

// A version's place in its ecosystem's order is its rank, maintained by publish: `version desc`
// is an index range on (artifact_uid, version_rank).
const versionsSpec: ListSpec<"library_versions"> = {
  table: "library_versions",
  domain: librariesDomain,
  fields: {
    version: { column: "version_rank" },
    created_at: { column: "create_time" },
    uid: { column: "uid" },
  },
  defaultField: "version",
  parentColumn: "artifact_uid",
  uncounted: true,
};

/** The ecosystems of a request, deduplicated, or the violation of a missing or bad value. */
function requestedEcosystems(values: readonly EcosystemEnum[], v: Violations): Ecosystem[] {
  const names = Object.values(ecosystemEnums)
    .map((e) => `ECOSYSTEM_${ecosystemOf(e)?.toUpperCase()}`)
    .join(", ");
  if (values.length === 0) {
    v.add("ecosystems", `is required: give one or more of ${names}`);
    return [];
  }
  const out = new Set<Ecosystem>();
  for (const value of values) {
    const ecosystem = ecosystemOf(value);
    if (!ecosystem) {
      v.add("ecosystems", `must be ${names}`);
      return [];
    }
    out.add(ecosystem);
  }
  return [...out];
}

/** The ListArtifacts filters Lading cannot honour: refused rather than silently ignored. */
function unsupportedFilters(req: { cudaVersion: string; remediated: boolean }, v: Violations) {
  if (req.cudaVersion !== "") {
    v.add("cuda_version", "Lading keeps no CUDA-specific builds; leave cuda_version empty");
  }
  if (req.remediated) {
    v.add("remediated", "Lading serves packages as published, none remediated; leave it false");
  }
}

/** The ArtifactsService implementation: the read-only catalogue of the library repositories. */
export function createArtifactsService(ctx: LibrariesContext): BoundService {
  const { db } = ctx;
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;

  async function publicOrgUid(): Promise<string | undefined> {
    const row = await db
      .selectFrom("groups")
      .select("uid")
      .where("parent_uid", "=", "")
      .where("name", "=", ctx.publicOrg)
      .executeTakeFirst();
    return row?.uid;
  }

  /** The organisations whose artifacts the caller sees: granted ones and the public one. */
  async function visibleOrgs(call: Call): Promise<string[]> {
    const granted = (await scopesOf(call, listCapability)).filter((s) => !s.includes("/"));
    const open = await publicOrgUid();
    return [...new Set(open ? [...granted, open] : granted)].sort();
  }

  return bindService(ArtifactsService, {
    async listArtifacts(req, call) {
      const v = new Violations();
      const ecosystems = requestedEcosystems(req.ecosystems, v);
      unsupportedFilters(req, v);
      const query = req.query.toLowerCase();
      if (query.length > maxQueryLength)
        v.add("query", `must be at most ${maxQueryLength} characters`);
      if (req.parent !== "") v.uid("parent", req.parent);
      if (!v.empty) throw invalidArgument(librariesDomain, v.list);
      const page = await ctx.lists.list(artifactsSpec, {
        parameters: req,
        filters: { parent_uid: req.parent },
        conditions: {
          binding: [ecosystems, query],
          where: (eb) => {
            const terms: Expression<SqlBool>[] = [eb("ecosystem", "in", ecosystems)];
            // A plain substring test: the query never reaches LIKE or a regular expression.
            if (query !== "") {
              const text = sql`lower(name || ${"\n"} || display_name || ${"\n"} || description)`;
              terms.push(
                postgres
                  ? sql<SqlBool>`strpos(${text}, ${query}) > 0`
                  : sql<SqlBool>`instr(${text}, ${query}) > 0`,
              );
            }
            return eb.and(terms);
          },
        },
        visible: { scopes: [], childrenOf: await visibleOrgs(call) },
        caller: call.principal?.identityUid ?? "",
      });
      return { ...page, artifacts: page.rows.map(artifactFromRow) };
    },

    async listArtifactVersions(req, call) {
      const parsed = parseArtifactUid(req.artifactId);
      if (!parsed.value) {
        throw invalidArgument(librariesDomain, [
          { field: "artifact_id", description: parsed.error ?? "is not an artifact uid" },
        ]);
      }
      const missing = () => notFound(librariesDomain, "artifact", req.artifactId);
      // Another organisation's artifacts do not exist for the caller: the same 404 as a typo.
      const grants = await call.principal?.grants();
      const orgUid = parsed.value.orgUid;
      if (!grants?.can(listCapability, orgUid) && orgUid !== (await publicOrgUid()))
        throw missing();
      const artifact = await db
        .selectFrom("library_artifacts")
        .selectAll()
        .where("uid", "=", req.artifactId)
        .executeTakeFirst();
      if (!artifact) throw missing();
      const page = await ctx.lists.list(versionsSpec, {
        parameters: { ...req, orderBy: req.orderBy.trim() === "" ? "version desc" : req.orderBy },
        filters: {},
        visible: { scopes: [], childrenOf: [artifact.uid] },
        caller: call.principal?.identityUid ?? "",
      });
      const advisories = await versionAdvisories(
        db,
        { ecosystem: parsed.value.ecosystem, name: artifact.name, orgUid },
        page.rows.map((r) => r.version),
      );
      return {
        ...page,
        artifactVersions: page.rows.map((row) =>
          versionFromRow(row, artifact, advisories.get(row.version) ?? []),
        ),
      };
    },

    async getArtifactCount(req, call) {
      const v = new Violations();
      const ecosystems = requestedEcosystems(req.ecosystems, v);
      if (!v.empty) throw invalidArgument(librariesDomain, v.list);
      const orgs = await visibleOrgs(call);
      const rows =
        orgs.length === 0
          ? []
          : await db
              .selectFrom("library_artifacts")
              .select((eb) => ["ecosystem", eb.fn.countAll<string | number>().as("n")])
              .where("ecosystem", "in", ecosystems)
              .where("parent_uid", "in", orgs)
              .groupBy("ecosystem")
              .execute();
      const counts = new Map(rows.map((r) => [r.ecosystem, BigInt(r.n)]));
      return {
        counts: ecosystems.map((e) => ({
          ecosystem: ecosystemEnums[e],
          totalCount: counts.get(e) ?? 0n,
        })),
      };
    },
  });
}
