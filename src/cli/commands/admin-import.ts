import { adminActor, recordAdvisoriesImported, recordGroupCreated } from "../../app/index.ts";
import { runInTransaction } from "../../store/metadata/index.ts";
import { isUidp } from "../../uidp/index.ts";
import {
  addSummary,
  detectFormat,
  emptySummary,
  ensurePublicAdvisoriesGroup,
  type ImportFormatName,
  importFeed,
  importFormats,
  isSourceName,
  sourceNameRule,
} from "../../vulnerabilities/index.ts";
import { UsageError } from "../cli-context.ts";
import { flagText, type GroupNode, type LocalVerbNode, type ParsedArgs } from "../command-spec.ts";
import { feedFiles, peekFeedFile, readFeedInputs } from "../feed-inputs.ts";
import { progressLine, summaryText } from "../import-report.ts";
import { importLibrariesVerb } from "./admin-import-libraries.ts";
import type { StoreTools } from "./admin-store.ts";
import { configFlagsNamed, issuerFlagNames, storeFlagNames } from "./config-flags.ts";

const what: Record<ImportFormatName, string> = {
  advisories: "advisory YAML documents (<package>.advisories.yaml, schema 2 to 2.0.2)",
  osv: "OSV JSON records",
  openvex: "OpenVEX v0.2.0 documents",
  nvd: "NVD CVE API 2.0 response pages",
  kev: "the CISA Known Exploited Vulnerabilities catalog",
  epss: "a FIRST EPSS daily CSV (optionally gzipped)",
};

type WithStore = (
  parsed: ParsedArgs,
  work: (tools: StoreTools) => Promise<void>,
) => Promise<number>;

function importVerb(format: ImportFormatName, withStore: WithStore): LocalVerbNode {
  const spec = importFormats[format];
  return {
    kind: "local",
    name: format,
    summary: `Import ${what[format]}`,
    args: "PATH...",
    minArgs: 1,
    maxArgs: Number.POSITIVE_INFINITY,
    flags: [
      {
        name: "source",
        value: "NAME",
        help: `groups what is imported, for withdrawal (default ${format})`,
      },
      {
        name: "partial",
        type: "boolean",
        help: "the paths are not the whole source: withdraw nothing that is not in them",
      },
      {
        name: "group",
        value: "UID",
        help: "import under this group (default: the public advisories group)",
      },
      ...configFlagsNamed(...storeFlagNames, ...issuerFlagNames),
    ],
    examples: [
      `lading admin import ${format} ./feeds/${format}/`,
      `cat feed | lading admin import ${format} -`,
    ],
    run: async (parsed, out) => {
      const files = await feedFiles(parsed.args, spec.extensions);
      return runImports(parsed, out, withStore, [[format, files]], []);
    },
  };
}

const allExtensions = [...new Set(Object.values(importFormats).flatMap((f) => f.extensions))];

/** `lading admin import any PATH...`: every file's format detected, each imported as its own. */
function anyVerb(withStore: WithStore): LocalVerbNode {
  return {
    kind: "local",
    name: "any",
    summary: "Import feed files of any format, detecting each file's format",
    args: "PATH...",
    minArgs: 1,
    maxArgs: Number.POSITIVE_INFINITY,
    flags: [
      {
        name: "partial",
        type: "boolean",
        help: "the paths are not the whole sources: withdraw nothing else",
      },
      {
        name: "group",
        value: "UID",
        help: "import under this group (default: the public advisories group)",
      },
      ...configFlagsNamed(...storeFlagNames, ...issuerFlagNames),
    ],
    examples: ["lading admin import any ./feeds/"],
    run: async (parsed, out) => {
      const byFormat = new Map<ImportFormatName, string[]>();
      const unknown: string[] = [];
      for (const file of await feedFiles(parsed.args, allExtensions)) {
        if (file === "-")
          throw new UsageError(
            "lading admin import any reads files; name the format to read standard input",
          );
        const format = detectFormat(file, await peekFeedFile(file));
        if (format) byFormat.set(format, [...(byFormat.get(format) ?? []), file]);
        else unknown.push(file);
      }
      return runImports(parsed, out, withStore, [...byFormat], unknown);
    },
  };
}

/** Imports each format's files under its own source, and prints one summary. */
function runImports(
  parsed: ParsedArgs,
  out: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
  withStore: WithStore,
  work: [ImportFormatName, string[]][],
  unknown: string[],
): Promise<number> {
  const single = work.length === 1 ? work[0][0] : undefined;
  const source = flagText(parsed, "source") ?? single;
  if (source !== undefined && !isSourceName(source))
    throw new UsageError(`--source ${sourceNameRule}`);
  const group = flagText(parsed, "group");
  if (group !== undefined && !isUidp(group)) throw new UsageError("--group must be a group uid");
  return withStore(parsed, async ({ store, apiUrl }) => {
    const db = store.db;
    const parentUid =
      group ??
      (await ensurePublicAdvisoriesGroup(db, (trx, row) =>
        recordGroupCreated(trx, apiUrl, adminActor, row),
      ));
    if (group) {
      const found = await db
        .selectFrom("groups")
        .select("uid")
        .where("uid", "=", group)
        .executeTakeFirst();
      if (!found) throw new UsageError(`no group ${group}`);
    }
    const total = work.reduce((n, [, files]) => n + files.length, 0);
    const progress = progressLine(out.stderr, total);
    const started = Date.now();
    const summary = emptySummary();
    let records = 0;
    let filesDone = 0;
    for (const [format, files] of work) {
      const spec = importFormats[format];
      const name = source ?? format;
      const before = { files: filesDone, records };
      const result = await importFeed(
        db,
        { parentUid, source: name, author: `import:${name}` },
        spec.parser,
        readFeedInputs(files),
        {
          finish: spec.advisories && parsed.flags.partial !== true,
          onProgress: (p) => {
            records = before.records + p.records;
            filesDone = before.files + p.files;
            progress.update({ files: filesDone, records });
          },
        },
      );
      addSummary(summary, result.summary);
      if (spec.advisories) {
        // The import commits batch by batch (an interrupted one keeps what it wrote), so its
        // event, the one ImportAdvisories records, is written once the whole run is done.
        await runInTransaction(db, (trx) =>
          recordAdvisoriesImported(trx, apiUrl, adminActor, parentUid, result),
        );
      }
    }
    for (const file of unknown) {
      summary.rejected++;
      summary.rejections.push({ file, position: "file", reason: "not a format Lading imports" });
    }
    progress.done();
    out.stdout.write(summaryText(summary, (Date.now() - started) / 1000, records));
  });
}

/** `lading admin import FORMAT PATH...`. */
export function adminImportCommands(withStore: WithStore): GroupNode {
  return {
    kind: "group",
    name: "import",
    summary:
      "Import advisories and vulnerability metadata from feed files, or library files from a mirror folder",
    children: [
      ...(Object.keys(importFormats) as ImportFormatName[]).map((f) => importVerb(f, withStore)),
      anyVerb(withStore),
      importLibrariesVerb(withStore),
    ],
  };
}
