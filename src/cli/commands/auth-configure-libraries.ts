import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { CliError, createApiClient, type Json, uidPath } from "../api-client.ts";
import { type CliContext, UsageError } from "../cli-context.ts";
import { npmrc, pipConf, pypirc } from "../client-config-files.ts";
import { readExpiry } from "../client-config-text.ts";
import { flagText, type ParsedArgs, type VerbNode } from "../command-spec.ts";
import { mergeMavenSettings } from "../maven-settings.ts";
import { looksLikeUid } from "../names.ts";
import { writeFileAtomic } from "../write-file-atomic.ts";
import { createPullToken } from "./auth-pull-token.ts";

/** The package managers Lading writes configuration for, by their ecosystem path segment. */
const clients = {
  pip: { ecosystem: "python", label: "pip (pip.conf; ~/.pypirc for twine with --publish)" },
  npm: { ecosystem: "javascript", label: "npm (.npmrc)" },
  maven: { ecosystem: "java", label: "Maven (settings.xml)" },
} as const;
type Client = keyof typeof clients;

/** Days before expiry from which `--check` fails, so a renewal is never a surprise. */
const warnDays = 7;

/** `lading auth configure-pip`, `configure-npm` and `configure-maven`. */
export const configureLibraryVerbs: VerbNode[] = (Object.keys(clients) as Client[]).map(
  (client): VerbNode => ({
    kind: "verb",
    name: `configure-${client}`,
    summary: `Write ${clients[client].label} with a pull token for an organisation's ${clients[client].ecosystem} repository`,
    flags: [
      {
        multiple: false,
        name: "parent",
        value: "ORG",
        help: "organisation uid or name (required unless --check)",
      },
      {
        multiple: false,
        name: "publish",
        type: "boolean",
        help: `bind libraries.${clients[client].ecosystem}.push instead of .pull`,
      },
      {
        multiple: false,
        name: "ttl",
        value: "DURATION",
        help: "lifetime, at most 8760h (default 720h)",
      },
      {
        multiple: false,
        name: "file",
        value: "PATH",
        help: `the file (default ${defaultHint(client)})`,
      },
      ...(client === "npm"
        ? [{ multiple: false, name: "scope", value: "@SCOPE", help: "only this scope's packages" }]
        : []),
      {
        multiple: false,
        name: "check",
        type: "boolean" as const,
        help: `report the credential's days left; exit 1 when expired or within ${warnDays} days`,
      },
    ],
    examples: [
      `lading auth configure-${client} --parent acme${client === "maven" ? " --publish" : ""}`,
    ],
    run: (ctx, parsed) =>
      parsed.flags.check === true ? check(ctx, client, parsed) : configure(ctx, client, parsed),
  }),
);

async function configure(ctx: CliContext, client: Client, parsed: ParsedArgs): Promise<number> {
  const parent = flagText(parsed, "parent");
  if (!parent) throw new UsageError("--parent ORG is required");
  const publish = parsed.flags.publish === true;
  const scope = flagText(parsed, "scope");
  if (scope !== undefined && !/^@[a-z0-9][a-z0-9._-]{0,213}$/.test(scope)) {
    throw new UsageError(`--scope: "${scope}" is not an npm scope such as @acme`);
  }
  const { ecosystem } = clients[client];
  const org = await resolveOrganisation(ctx, parent);
  const token = await createPullToken(ctx, {
    parent: org.uid,
    ttl: flagText(parsed, "ttl"),
    name: `${client}-${publish ? "push" : "pull"}-${Date.now().toString(36)}`,
    role: `libraries.${ecosystem}.${publish ? "push" : "pull"}`,
    createdBy: `lading auth configure-${client}`,
  });
  const entry = {
    username: token.username,
    password: token.password,
    url: `${ctx.registryUrl.replace(/\/+$/, "")}/${ecosystem}/${org.name}/`,
    expires: token.expirationTime,
    renew: `lading auth configure-${client} --parent ${org.name}${publish ? " --publish" : ""}`,
    scope,
  };
  const file = flagText(parsed, "file") ?? defaultFile(ctx, client);
  const written = [file];
  if (client === "pip") {
    await update(file, (text) => pipConf(text, entry));
    if (publish) {
      const twine = join(home(ctx), ".pypirc");
      await update(twine, (text) => pypirc(text, entry));
      written.push(twine);
    }
  } else if (client === "npm") {
    await update(file, (text) => npmrc(text, entry));
  } else {
    await update(file, (text) =>
      mergeMavenSettings(text, {
        ...entry,
        // XML comments may not hold "--", so the renewal is spelled without flags.
        comment: `lading-expires=${entry.expires}; renew with: lading auth configure-${client} (organisation ${org.name})`,
      }),
    );
  }
  if (ctx.output === "json") {
    const summary = {
      files: written,
      url: entry.url,
      username: token.username,
      expirationTime: token.expirationTime,
      roleBinding: token.roleBinding,
    };
    ctx.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    return 0;
  }
  const lines = [
    ...written.map((f) => `Wrote ${f}`),
    `Repository: ${entry.url}`,
    `Username:   ${token.username}`,
    `Expires:    ${token.expirationTime} (check with: lading auth configure-${client} --check${flagText(parsed, "file") ? ` --file ${file}` : ""})`,
    `Revoke with: lading iam identities delete ${token.username}`,
  ];
  if (client === "maven") {
    lines.push(
      `Deploy with <distributionManagement><repository><id>lading</id><url>${entry.url}</url></repository></distributionManagement> in the pom.`,
    );
  }
  ctx.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

async function check(ctx: CliContext, client: Client, parsed: ParsedArgs): Promise<number> {
  const file = flagText(parsed, "file") ?? defaultFile(ctx, client);
  const text = await readFile(file, "utf8").catch(() => undefined);
  const expires = text === undefined ? undefined : readExpiry(text);
  if (!expires) {
    ctx.stderr.write(
      `lading: no Lading credentials in ${file}; run lading auth configure-${client} --parent ORG\n`,
    );
    return 1;
  }
  const days = Math.floor((expires.getTime() - Date.now()) / 86_400_000);
  const renew = `renew with lading auth configure-${client} --parent ORG`;
  if (expires.getTime() <= Date.now()) {
    ctx.stderr.write(
      `lading: the credentials in ${file} expired on ${expires.toISOString()}; ${renew}\n`,
    );
    return 1;
  }
  if (days < warnDays) {
    ctx.stderr.write(
      `lading: the credentials in ${file} expire on ${expires.toISOString()} (${days} days left); ${renew}\n`,
    );
    return 1;
  }
  ctx.stdout.write(`${file}: credentials expire on ${expires.toISOString()} (${days} days left)\n`);
  return 0;
}

/** The organisation's uid and name from either. */
async function resolveOrganisation(ctx: CliContext, parent: string) {
  const api = createApiClient(ctx);
  if (looksLikeUid(parent)) {
    const group = await api.get(`/iam/v2/groups/${uidPath(parent)}`);
    return { uid: parent, name: String(group.name) };
  }
  const groups = ((await api.get("/iam/v2/groups", { name: parent, page_size: 200 })).groups ??
    []) as Json[];
  const root = groups.find((g) => g.name === parent && !String(g.uid).includes("/"));
  if (!root) throw new CliError([`lading: no organisation named "${parent}"`]);
  return { uid: String(root.uid), name: parent };
}

/** Rewrites `file` through `change`, atomically, mode 0600 (it holds a credential). */
async function update(file: string, change: (text: string) => string): Promise<void> {
  const before = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return "";
    throw error;
  });
  await writeFileAtomic(file, change(before), 0o600);
}

function home(ctx: CliContext): string {
  return ctx.env.HOME || homedir();
}

/** Each client's user-level file, as the client itself looks for it. */
function defaultFile(ctx: CliContext, client: Client): string {
  if (client === "pip") {
    return (
      ctx.env.PIP_CONFIG_FILE ||
      join(ctx.env.XDG_CONFIG_HOME || join(home(ctx), ".config"), "pip", "pip.conf")
    );
  }
  if (client === "npm") return ctx.env.NPM_CONFIG_USERCONFIG || join(home(ctx), ".npmrc");
  return join(home(ctx), ".m2", "settings.xml");
}

function defaultHint(client: Client): string {
  if (client === "pip") return "$PIP_CONFIG_FILE or ~/.config/pip/pip.conf";
  if (client === "npm") return "$NPM_CONFIG_USERCONFIG or ~/.npmrc";
  return "~/.m2/settings.xml";
}
