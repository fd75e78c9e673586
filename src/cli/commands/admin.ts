import { resolve } from "node:path";
import { adminActor, bootstrapOrganisation } from "../../app/index.ts";
import { createTokenIssuer, ensureBuiltInRoles } from "../../auth/index.ts";
import { type LadingConfig, urlForAddress } from "../../config/index.ts";
import { createMetadataStore, type MetadataStore } from "../../store/metadata/index.ts";
import { isUidp } from "../../uidp/index.ts";
import { publicAdvisoriesGroupUid } from "../../vulnerabilities/index.ts";
import { UsageError } from "../cli-context.ts";
import { flagText, type GroupNode, type LocalVerbNode, type ParsedArgs } from "../command-spec.ts";
import { parseDuration } from "../duration.ts";
import { adminGcVerb, adminStorageCommands } from "./admin-gc.ts";
import { adminImportCommands } from "./admin-import.ts";
import type { StoreTools } from "./admin-store.ts";
import { configFlagsNamed, issuerFlagNames, loadConfig, storeFlagNames } from "./config-flags.ts";
import { demoImage } from "./demo-image.ts";

/** The store a config names, as an operator would recognise it. */
function storeName(config: LadingConfig): string {
  return config.databaseUrl
    ? `the PostgreSQL database ${new URL(config.databaseUrl).pathname.slice(1) || "(default)"} on ${new URL(config.databaseUrl).host}`
    : `the embedded store in ${resolve(config.dataDir)}`;
}

/** How to point an admin command at the store the server uses. */
const sameStoreHint =
  "pass the --config, --database-url or --data-dir the server runs with (or run from its folder, where lading.yaml is read)";

/** Whether the store holds no organisation yet. */
async function hasNoOrganisations(store: MetadataStore): Promise<boolean> {
  const root = await store.db
    .selectFrom("groups")
    .select("uid")
    .where("parent_uid", "=", "")
    .where("uid", "!=", publicAdvisoriesGroupUid)
    .limit(1)
    .executeTakeFirst();
  return root === undefined;
}

/** Longest token `lading admin token` mints: 30 days. */
const maxAdminTtlSeconds = 30 * 86400;

/** Opens the store the flags name, brings it up to date and runs `work` on it. */
async function withStore(
  parsed: ParsedArgs,
  work: (tools: StoreTools) => Promise<void>,
): Promise<number> {
  const config = loadConfig(parsed);
  const store = createMetadataStore(config);
  try {
    const applied = await store.migrate();
    await ensureBuiltInRoles(store.db);
    const tokens = createTokenIssuer({ db: store.db, issuerUrl: apiUrlOf(config) });
    await work({ applied, config, apiUrl: apiUrlOf(config), store, tokens });
    return 0;
  } finally {
    await store.close();
  }
}

const migrate: LocalVerbNode = {
  kind: "local",
  name: "migrate",
  summary: 'Apply pending migrations; prints {"applied":[…]}',
  flags: configFlagsNamed(...storeFlagNames),
  run: (parsed, out) =>
    withStore(parsed, async ({ applied }) => {
      out.stdout.write(`${JSON.stringify({ applied })}\n`);
    }),
};

const bootstrap: LocalVerbNode = {
  kind: "local",
  name: "bootstrap",
  summary: "Create an organisation and its owner; prints {groupUid, identityUid, token}",
  flags: [
    { name: "org", value: "NAME", required: true, help: "the organisation's name" },
    ...configFlagsNamed(...storeFlagNames, ...issuerFlagNames),
  ],
  examples: ["lading admin bootstrap --org acme --data-dir ./.lading"],
  run: (parsed, out) =>
    withStore(parsed, async ({ config, apiUrl, store, tokens }) => {
      const first = await hasNoOrganisations(store);
      const result = await bootstrapOrganisation(store.db, flagText(parsed, "org") ?? "", {
        apiUrl,
        actor: adminActor,
      });
      if (first) {
        // A first organisation is right on a new install and wrong when the server runs on
        // another store: say which store this was, once, where a script does not parse it.
        out.stderr.write(
          `lading: created the first organisation in ${storeName(config)}; if the server uses another store, ${sameStoreHint}\n`,
        );
      }
      const token = await tokens.mint({
        subject: result.identityUid,
        audience: apiUrl,
        ttlSeconds: 3600,
      });
      out.stdout.write(`${JSON.stringify({ ...result, token })}\n`);
    }),
};

const token: LocalVerbNode = {
  kind: "local",
  name: "token",
  summary: "Print a token for an identity (default audience: the API URL)",
  flags: [
    { name: "identity", value: "UID", required: true, help: "the identity uid" },
    { name: "audience", value: "AUD", help: "token audience (default: the API URL)" },
    { name: "ttl", value: "DURATION", help: "lifetime, at most 720h (default 1h)" },
    ...configFlagsNamed(...storeFlagNames, ...issuerFlagNames),
  ],
  examples: ["lading admin token --identity 3f2a…/9b1c… --audience 127.0.0.1:5000 --ttl 15m"],
  run: (parsed, out) =>
    withStore(parsed, async ({ config, store, tokens }) => {
      const identity = flagText(parsed, "identity") ?? "";
      if (!isUidp(identity)) throw new UsageError("--identity must be an identity uid");
      const ttl = parseDuration(flagText(parsed, "ttl") ?? "1h");
      if (ttl.error || !ttl.value) throw new UsageError(`--ttl: ${ttl.error}`);
      if (ttl.value > maxAdminTtlSeconds) throw new UsageError("--ttl must be at most 720h");
      const found = await store.db
        .selectFrom("identities")
        .select("uid")
        .where("uid", "=", identity)
        .executeTakeFirst();
      if (!found) {
        const empty = await hasNoOrganisations(store);
        throw new UsageError(
          empty
            ? `no identity ${identity}: ${storeName(config)} holds no organisations; ${sameStoreHint}`
            : `no identity ${identity} in ${storeName(config)}`,
        );
      }
      const minted = await tokens.mint({
        subject: identity,
        audience: flagText(parsed, "audience") ?? apiUrlOf(config),
        ttlSeconds: ttl.value,
      });
      out.stdout.write(`${minted}\n`);
    }),
};

/** `lading admin …`: operator commands that act on the store directly. */
export const adminCommands: GroupNode = {
  kind: "group",
  name: "admin",
  summary:
    "Operator commands on the store: migrate, bootstrap, token, import, gc, storage; and demo-image",
  children: [
    migrate,
    bootstrap,
    token,
    adminImportCommands(withStore),
    adminGcVerb(withStore),
    adminStorageCommands(withStore),
    demoImage,
  ],
};

/** The issuer the server will use: --api-url, else derived from --api-listen as serve does. */
function apiUrlOf(config: LadingConfig): string {
  return (
    config.apiUrl ??
    urlForAddress(config.apiListen.host, config.apiListen.port, config.tls !== undefined)
  );
}
