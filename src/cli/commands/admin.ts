import { parseArgs } from "node:util";
import { bootstrapOrganisation } from "../../app/index.ts";
import { createTokenIssuer, ensureBuiltInRoles } from "../../auth/index.ts";
import { type LadingConfig, resolveConfig, urlForAddress } from "../../config/index.ts";
import { createMetadataStore } from "../../store/metadata/index.ts";
import { isUidp } from "../../uidp/index.ts";
import { parseDuration } from "../duration.ts";
import { configFromFlags, configOptions } from "./config-flags.ts";

/** Longest token `lading admin token` mints: 30 days. */
const maxAdminTtlSeconds = 30 * 86400;

const usage = `usage:
  lading admin migrate   [--data-dir DIR | --database-url URL]
  lading admin bootstrap --org NAME [--data-dir DIR | --database-url URL] [--api-url URL]
  lading admin token     --identity UID [--audience AUD] [--ttl DURATION] [--data-dir DIR | --database-url URL]
`;

/** `lading admin …`: operator commands that act on the store directly. */
export async function admin(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    strict: true,
    options: {
      ...configOptions,
      org: { type: "string" },
      identity: { type: "string" },
      audience: { type: "string" },
      ttl: { type: "string" },
    },
  });
  if (!["migrate", "bootstrap", "token"].includes(command ?? "")) {
    process.stderr.write(usage);
    return 2;
  }
  const config = resolveConfig(configFromFlags(values));
  const store = createMetadataStore(config);
  try {
    const applied = await store.migrate();
    await ensureBuiltInRoles(store.db);
    const tokens = createTokenIssuer({ db: store.db, issuerUrl: apiUrlOf(config) });
    if (command === "migrate") {
      process.stdout.write(`${JSON.stringify({ applied })}\n`);
    } else if (command === "bootstrap") {
      if (!values.org) throw new UsageError("--org NAME is required");
      const result = await bootstrapOrganisation(store.db, values.org);
      const token = await tokens.mint({
        subject: result.identityUid,
        audience: apiUrlOf(config),
        ttlSeconds: 3600,
      });
      process.stdout.write(`${JSON.stringify({ ...result, token })}\n`);
    } else {
      const identity = values.identity ?? "";
      if (!isUidp(identity)) throw new UsageError("--identity must be an identity uid");
      const found = await store.db
        .selectFrom("identities")
        .select("uid")
        .where("uid", "=", identity)
        .executeTakeFirst();
      if (!found) throw new UsageError(`no identity ${identity}`);
      const ttl = parseDuration(values.ttl ?? "1h");
      if (ttl.error || !ttl.value) throw new UsageError(`--ttl: ${ttl.error}`);
      if (ttl.value > maxAdminTtlSeconds) throw new UsageError("--ttl must be at most 720h");
      const token = await tokens.mint({
        subject: identity,
        audience: values.audience ?? apiUrlOf(config),
        ttlSeconds: ttl.value,
      });
      process.stdout.write(`${token}\n`);
    }
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`lading admin ${command}: ${error.message}\n`);
    return 2;
  } finally {
    await store.close();
  }
}

/** The issuer the server will use: --api-url, else derived from --api-listen as serve does. */
function apiUrlOf(config: LadingConfig): string {
  return (
    config.apiUrl ??
    urlForAddress(config.apiListen.host, config.apiListen.port, config.tls !== undefined)
  );
}

class UsageError extends Error {}
