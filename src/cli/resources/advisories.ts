import { advisoryEventTypes } from "../../vulnerabilities/index.ts";
import { createApiClient, type Json, type Query } from "../api-client.ts";
import { UsageError } from "../cli-context.ts";
import { type FlagSpec, flagText, type ParsedArgs, type VerbNode } from "../command-spec.ts";
import { feedFiles, readFeedInputs } from "../feed-inputs.ts";
import { progressLine, summaryText } from "../import-report.ts";
import { resolveGroup } from "../names.ts";
import { type Column, field, printList } from "../output.ts";
import { groupFlag, type ResourceDef } from "./crud.ts";

/** A repeated flag's values (the server also takes them comma-separated). */
function values(parsed: ParsedArgs, name: string): string[] | undefined {
  const value = parsed.flags[name];
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [String(value)];
}

const eventTypes = advisoryEventTypes;

const eventTypeEnum = (name: string) => `EVENT_TYPE_${name.toUpperCase().replaceAll("-", "_")}`;
const eventTypeWord = (value: unknown) =>
  String(value ?? "")
    .replace(/^EVENT_TYPE_/, "")
    .toLowerCase()
    .replaceAll("_", "-");

/** Largest request body the CLI builds; the server takes 1 MiB. */
const maxBatchBytes = 900 * 1024;

const formats = { advisories: [".yaml", ".yml"], osv: [".json"], openvex: [".json"] } as const;

const columns: Column[] = [
  field("advisory", "advisoryId"),
  field("artifact", "artifactName"),
  { header: "aliases", value: (r) => ((r.aliases as string[] | undefined) ?? []).join(",") },
  { header: "status", value: (r) => eventTypeWord(r.latestEventType) },
  {
    header: "fixed in",
    value: (r) => {
      const events = (r.events as Json[] | undefined) ?? [];
      const fixed = events.filter((e) => e.fixed).at(-1)?.fixed as Json | undefined;
      return String(fixed?.fixedVersion ?? "");
    },
  },
  field("updated", "updateTime"),
  field("uid", "uid"),
];

const filters: FlagSpec[] = [
  { name: "under", value: "GROUP", help: "only advisories anywhere below this group" },
  { name: "artifact", value: "NAME", multiple: true, help: "only these artifacts (packages)" },
  { name: "id", value: "CGA-ID", multiple: true, help: "only these advisory ids" },
  {
    name: "alias",
    value: "ID",
    multiple: true,
    help: "only advisories with this alias (CVE, GHSA, …)",
  },
  { name: "component", value: "NAME", multiple: true, help: "only these component names" },
  {
    name: "event-type",
    value: "TYPE",
    multiple: true,
    choices: eventTypes,
    help: "only advisories with an event of this type",
  },
  {
    name: "status",
    value: "TYPE",
    choices: eventTypes,
    help: "only advisories whose latest event is of this type",
  },
  {
    name: "query",
    value: "TEXT",
    help: "case-insensitive substring of artifact, component or alias",
  },
  { name: "show-withdrawn", type: "boolean", help: "include withdrawn advisories" },
];

/** `lading advisories list|get|import`. */
export const advisories: ResourceDef = {
  name: "advisories",
  summary: "Security advisories: one vulnerability in one package, with its timeline",
  collection: "/vulnerabilities/v2/advisories",
  listKey: "advisories",
  columns,
  standardFilters: false,
  listFilters: filters,
  listQuery: async (p, api): Promise<Query> => ({
    "uidp.descendants_of": await groupFlag(api, p, "under"),
    artifact_names: values(p, "artifact"),
    advisory_ids: values(p, "id"),
    aliases: values(p, "alias"),
    component_names: values(p, "component"),
    event_types: values(p, "event-type")?.map(eventTypeEnum),
    latest_event_type: flagText(p, "status") && eventTypeEnum(flagText(p, "status") ?? ""),
    query: flagText(p, "query"),
    show_withdrawn: p.flags["show-withdrawn"] === true ? "true" : undefined,
  }),
  delete: false,
  extra: [importVerb()],
};

function importVerb(): VerbNode {
  return {
    kind: "verb",
    name: "import",
    summary: "Publish advisories to a group from advisory YAML, OSV or OpenVEX files",
    args: "PATH...",
    minArgs: 1,
    maxArgs: Number.POSITIVE_INFINITY,
    flags: [
      {
        name: "parent",
        value: "GROUP",
        required: true,
        help: "the group (uid or name) the advisories belong to",
      },
      {
        name: "format",
        value: "FORMAT",
        choices: Object.keys(formats),
        help: "the files' format (default advisories)",
      },
      {
        name: "source",
        value: "NAME",
        help: "groups what is imported, for withdrawal (default api)",
      },
      {
        name: "partial",
        type: "boolean",
        help: "the paths are not the whole source: withdraw nothing else",
      },
    ],
    examples: ["lading advisories import ./advisories/ --parent $ORG --source ci"],
    async run(ctx, parsed) {
      const format = (flagText(parsed, "format") ?? "advisories") as keyof typeof formats;
      if (!Object.hasOwn(formats, format))
        throw new UsageError("--format must be advisories, osv or openvex");
      const files = await feedFiles(parsed.args, formats[format]);
      const api = createApiClient(ctx);
      const base = {
        parent: await resolveGroup(api, flagText(parsed, "parent") ?? ""),
        format: `IMPORT_FORMAT_${format.toUpperCase()}`,
        source: flagText(parsed, "source") ?? "",
      };
      const totals = {
        created: 0,
        updated: 0,
        withdrawn: 0,
        unchanged: 0,
        rejected: 0,
        rejections: [] as Json[],
      };
      const known: string[] = [];
      const add = (answer: Json) => {
        for (const key of ["created", "updated", "withdrawn", "unchanged", "rejected"] as const) {
          totals[key] += Number(answer[key] ?? 0);
        }
        totals.rejections.push(...((answer.rejections as Json[] | undefined) ?? []));
        known.push(...((answer.documents as string[] | undefined) ?? []));
      };
      const progress = progressLine(ctx.stderr, files.length);
      const started = Date.now();
      let batch: { name: string; content: string }[] = [];
      let size = 0;
      let done = 0;
      const send = async (finish: boolean) => {
        if (batch.length === 0 && !finish) return;
        add(
          await api.post("/vulnerabilities/v2/advisories:import", {
            ...base,
            documents: batch,
            finish,
            knownDocuments: finish ? known : [],
          }),
        );
        batch = [];
        size = 0;
      };
      for await (const input of readFeedInputs(files)) {
        const bytes = Buffer.byteLength(input.text) + input.file.length + 64;
        if (bytes > maxBatchBytes)
          throw new UsageError(`${input.file}: larger than ${maxBatchBytes} bytes; split it`);
        if (size + bytes > maxBatchBytes || batch.length >= 1000) await send(false);
        batch.push({ name: input.file, content: input.text });
        size += bytes;
        done++;
        progress.update({
          files: done,
          records: totals.created + totals.updated + totals.unchanged + totals.rejected,
        });
      }
      await send(parsed.flags.partial !== true);
      progress.done();
      const records = totals.created + totals.updated + totals.unchanged + totals.rejected;
      if (ctx.output === "json") ctx.stdout.write(`${JSON.stringify(totals)}\n`);
      else
        ctx.stdout.write(
          summaryText(
            {
              ...totals,
              rejections: totals.rejections.map((r) => ({
                file: String(r.file ?? ""),
                position: String(r.position ?? ""),
                reason: String(r.reason ?? ""),
              })),
            },
            (Date.now() - started) / 1000,
            records,
          ),
        );
      return 0;
    },
  };
}

/** `lading vulns metadata CVE...`. */
export const vulnsMetadata: VerbNode = {
  kind: "verb",
  name: "metadata",
  summary: "Show vulnerability metadata: CVSS, KEV, EPSS, CWE (no sign-in needed)",
  args: "ID...",
  minArgs: 1,
  maxArgs: 1000,
  flags: [],
  examples: ["lading vulns metadata CVE-2024-3094 CVE-2021-44228"],
  async run(ctx, parsed) {
    const answer = await createApiClient(ctx, { anonymous: true }).get("/advisory/v2/metadata", {
      ids: parsed.args.join(","),
      page_size: "200",
    });
    const rows = (answer.vulnerabilityMetadata as Json[] | undefined) ?? [];
    const missing = parsed.args.filter((id) => !rows.some((r) => r.id === id));
    const table: Column[] = [
      field("id", "id"),
      {
        header: "cvss",
        value: (r) => {
          const s = ((r.severities as Json[] | undefined) ?? []).find((x) => x.baseScore);
          return s ? `${s.baseScore} (${String(s.type).replace("TYPE_CVSS_", "")})` : "";
        },
      },
      { header: "kev", value: (r) => (r.kev ? `yes, since ${r.kevDateAdded}` : "no") },
      {
        header: "epss",
        value: (r) =>
          r.epssScore === undefined ? "" : `${r.epssScore} (p${r.epssPercentile}, ${r.epssDate})`,
      },
      { header: "cwes", value: (r) => ((r.cwes as string[] | undefined) ?? []).join(",") },
      { header: "summary", value: (r) => String(r.summary || r.details || "").slice(0, 80) },
    ];
    printList(ctx, rows, table, answer, "id");
    if (missing.length > 0) ctx.stderr.write(`lading: no metadata for ${missing.join(", ")}\n`);
    return missing.length > 0 ? 1 : 0;
  },
};
