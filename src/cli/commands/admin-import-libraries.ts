import { stat } from "node:fs/promises";
import { adminActor, importLibraries, type LibraryImportSummary } from "../../app/index.ts";
import { type LadingConfig, urlForAddress } from "../../config/index.ts";
import { ecosystems } from "../../libraries/index.ts";
import { createBlobStore } from "../../store/blobs/index.ts";
import { UsageError } from "../cli-context.ts";
import {
  type CommandOutput,
  flagText,
  type LocalVerbNode,
  type ParsedArgs,
} from "../command-spec.ts";
import type { StoreTools } from "./admin-store.ts";
import { configFlagsNamed, issuerFlagNames, storeFlagNames } from "./config-flags.ts";

type WithStore = (
  parsed: ParsedArgs,
  work: (tools: StoreTools) => Promise<void>,
) => Promise<number>;

/** A progress line at least this often (files), and at most once a second otherwise. */
const progressEvery = 100;

/** The registry URL `serve` answers on: --registry-url, else from --registry-listen. */
function registryUrlOf(config: LadingConfig): string {
  return (
    config.registryUrl ??
    urlForAddress(config.registryListen.host, config.registryListen.port, config.tls !== undefined)
  );
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** The summary as text: one line per ecosystem, then every file not imported. */
export function librarySummaryText(summary: LibraryImportSummary, seconds: number): string {
  const lines = ecosystems.map((e) => {
    const c = summary.ecosystems[e];
    return `${e}: ${c.artifacts} artifacts, ${c.versionsCreated} versions created, files: ${c.filesCreated} created, ${c.filesUnchanged} unchanged, ${c.filesConflicting} conflicting, ${c.filesRefused} refused`;
  });
  lines.push(
    `${summary.skipped} skipped, ${summary.ignored} ignored (Maven checksums and metadata), in ${seconds.toFixed(1)} s`,
  );
  for (const p of summary.problems) lines.push(`${p.outcome}: ${p.path}: ${p.reason}`);
  return `${lines.join("\n")}\n`;
}

/** `lading admin import libraries --org NAME DIR`. */
export function importLibrariesVerb(withStore: WithStore): LocalVerbNode {
  return {
    kind: "local",
    name: "libraries",
    summary: "Import Python, npm and Maven files from a mirror folder into an organisation",
    args: "DIR",
    minArgs: 1,
    maxArgs: 1,
    flags: [
      { name: "org", value: "NAME", required: true, help: "the organisation to import into" },
      ...configFlagsNamed(
        ...storeFlagNames,
        ...issuerFlagNames,
        "blob-store",
        "registry-listen",
        "registry-url",
        "libraries-max-file-size",
      ),
    ],
    examples: [
      "lading admin import libraries --org acme ./mirror   # ./mirror/{python,javascript,java}/…",
      "lading -o json admin import libraries --org acme --data-dir /var/lib/lading ./mirror",
    ],
    run: (parsed, out) => runImport(parsed, out, withStore),
  };
}

async function runImport(
  parsed: ParsedArgs,
  out: CommandOutput,
  withStore: WithStore,
): Promise<number> {
  const orgName = flagText(parsed, "org") ?? "";
  const dir = parsed.args[0];
  const json = out.output === "json";
  if (out.output !== undefined && !json && out.output !== "table") {
    throw new UsageError("lading admin import libraries prints a table or json (-o json)");
  }
  const folder = await stat(dir).catch(() => undefined);
  if (!folder?.isDirectory()) throw new UsageError(`${dir} is not a folder`);
  let refused = 0;
  const code = await withStore(parsed, async ({ config, store }) => {
    const org = await store.db
      .selectFrom("groups")
      .select("uid")
      .where("parent_uid", "=", "")
      .where("name", "=", orgName)
      .executeTakeFirst();
    if (!org) throw new UsageError(`no organisation ${orgName} in this store`);
    const blobs = await createBlobStore({
      dataDir: config.dataDir,
      blobStoreUrl: config.blobStoreUrl,
    });
    const started = Date.now();
    let shown = { at: started, files: 0 };
    const summary = await importLibraries(
      {
        db: store.db,
        blobs,
        orgUid: org.uid,
        orgName,
        registryUrl: registryUrlOf(config),
        actor: adminActor,
        // What the repositories accept on upload (--libraries-max-file-size).
        maxFileBytes: config.librariesMaxFileBytes,
      },
      dir,
      (p) => {
        const now = Date.now();
        const last = p.files === p.totalFiles;
        if (!last && p.files - shown.files < progressEvery && now - shown.at < 1000) return;
        shown = { at: now, files: p.files };
        out.stderr.write(
          `lading: ${p.files}/${p.totalFiles} files, ${mib(p.bytes)}/${mib(p.totalBytes)}\n`,
        );
      },
    );
    refused = summary.refused;
    const seconds = (Date.now() - started) / 1000;
    out.stdout.write(json ? `${JSON.stringify(summary)}\n` : librarySummaryText(summary, seconds));
  });
  return code === 0 && refused > 0 ? 1 : code;
}
