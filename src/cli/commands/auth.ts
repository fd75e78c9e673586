import { decodeJwt } from "jose";
import { createApiClient, type Json } from "../api-client.ts";
import type { CliContext } from "../cli-context.ts";
import type { GroupNode, VerbNode } from "../command-spec.ts";
import { credentialHelperProblem } from "../credential-helper-check.ts";
import { readCredentials, updateCredentials } from "../credentials-store.ts";
import { addCredentialHelper, dockerConfigPath } from "../docker-config.ts";
import { postForm, tokenFor } from "../session.ts";
import { configureLibraryVerbs } from "./auth-configure-libraries.ts";
import { login } from "./auth-login.ts";
import { createPullToken, printPullToken } from "./auth-pull-token.ts";

const text = (value: unknown) => (typeof value === "string" ? value : undefined);

const authVerbs: VerbNode[] = [
  {
    kind: "verb",
    name: "login",
    summary: "Sign in through the browser (authorization code + PKCE on a loopback redirect)",
    flags: [
      {
        multiple: false,
        name: "identity-provider",
        value: "UID",
        help: "identity provider (default: the last one, or config identityProvider)",
      },
      {
        multiple: false,
        name: "invite-code",
        value: "CODE",
        help: "accept a group invite after signing in",
      },
      {
        multiple: false,
        name: "no-browser",
        type: "boolean",
        help: "only print the sign-in URL (also LADING_NO_BROWSER=1)",
      },
    ],
    examples: ["lading auth login --identity-provider 0f3c…"],
    async run(ctx, parsed) {
      const identity = await login(ctx, {
        identityProvider: text(parsed.flags["identity-provider"]),
        noBrowser: parsed.flags["no-browser"] === true,
      });
      ctx.stdout.write(`Signed in as ${identity}\n`);
      const code = text(parsed.flags["invite-code"]);
      if (code) {
        const accepted = await createApiClient(ctx).post("/iam/v2/groupInvites:accept", { code });
        const binding = (accepted.roleBinding ?? {}) as Record<string, Json | undefined>;
        ctx.stdout.write(
          `Accepted the invite: role ${binding.role?.name ?? binding.role?.uid} on group ${binding.group?.name ?? ""} (${binding.group?.uid})\n`,
        );
      }
      return 0;
    },
  },
  {
    kind: "verb",
    name: "logout",
    summary: "Revoke the session's refresh token and forget the session",
    flags: [],
    async run(ctx) {
      const session = (await readCredentials(ctx.configDir)).sessions[ctx.apiUrl];
      if (!session?.refreshToken) {
        ctx.stderr.write(`not signed in to ${ctx.apiUrl}\n`);
        return 0;
      }
      try {
        await postForm(`${ctx.apiUrl}/auth/v2/logout`, new URLSearchParams(), session.refreshToken);
      } catch (error) {
        ctx.stderr.write(
          `warning: the server did not revoke the session (${(error as Error).message}); it is forgotten here\n`,
        );
      }
      await updateCredentials(ctx.configDir, async (credentials) => {
        const { identityProvider } = credentials.sessions[ctx.apiUrl] ?? {};
        credentials.sessions[ctx.apiUrl] = identityProvider ? { identityProvider } : {};
        if (!identityProvider) delete credentials.sessions[ctx.apiUrl];
      });
      ctx.stdout.write(`Signed out of ${ctx.apiUrl}\n`);
      return 0;
    },
  },
  {
    kind: "verb",
    name: "status",
    summary: "Show the signed-in identity, API URL and cached tokens (exit 1 when not signed in)",
    flags: [],
    run: status,
  },
  {
    kind: "verb",
    name: "token",
    summary: "Print a Lading token (LADING_TOKEN, re-minted when needed, or the session's)",
    flags: [
      {
        multiple: false,
        name: "audience",
        value: "AUD",
        help: "the token audience, e.g. the registry host (default: the API URL)",
      },
    ],
    examples: ["lading auth token --audience registry.example.com"],
    async run(ctx, parsed) {
      ctx.stdout.write(`${await tokenFor(ctx, text(parsed.flags.audience) ?? ctx.apiUrl)}\n`);
      return 0;
    },
  },
  {
    kind: "verb",
    name: "configure-docker",
    summary: "Make Docker, skopeo and podman use docker-credential-lading for the registry",
    flags: [
      {
        multiple: false,
        name: "authfile",
        value: "FILE",
        help: "also configure this containers auth file (default: REGISTRY_AUTH_FILE when set)",
      },
    ],
    async run(ctx, parsed) {
      // A credHelpers entry whose helper cannot run breaks every login to the registry,
      // anonymous pulls included, so nothing is written until the helper answers.
      const problem = await credentialHelperProblem(ctx.env);
      if (problem) {
        ctx.stderr.write(`lading: ${problem}\n`);
        return 1;
      }
      const files = [dockerConfigPath(ctx.env)];
      const authfile = text(parsed.flags.authfile) ?? ctx.env.REGISTRY_AUTH_FILE;
      if (authfile) files.push(authfile);
      for (const file of files) {
        const changed = await addCredentialHelper(file, ctx.registryAudience);
        ctx.stdout.write(
          `${changed ? "Configured" : "Already configured"} ${file}: credHelpers["${ctx.registryAudience}"] = "lading"\n`,
        );
      }
      return 0;
    },
  },
  {
    kind: "verb",
    name: "pull-token",
    summary:
      "Create long-lived registry pull credentials (a static-key identity bound to registry.pull)",
    flags: [
      {
        multiple: false,
        name: "parent",
        value: "GROUP",
        required: true,
        help: "the organisation (uid or name) to pull from",
      },
      {
        multiple: false,
        name: "ttl",
        value: "DURATION",
        help: "lifetime, at most 8760h (default 720h)",
      },
      {
        multiple: false,
        name: "name",
        value: "NAME",
        help: "identity name (default pull-token-<random>)",
      },
    ],
    examples: ["lading auth pull-token --parent 3f2a… --ttl 720h -o json"],
    async run(ctx, parsed) {
      const token = await createPullToken(ctx, {
        parent: text(parsed.flags.parent) ?? "",
        ttl: text(parsed.flags.ttl),
        name: text(parsed.flags.name),
      });
      printPullToken(ctx, token, ctx.output);
      return 0;
    },
  },
  ...configureLibraryVerbs,
];

/** `lading auth …`. */
export const authCommands: GroupNode = {
  kind: "group",
  name: "auth",
  summary: "Sign in, print tokens, configure docker, pip, npm and Maven, create pull tokens",
  children: authVerbs,
};

async function status(ctx: CliContext): Promise<number> {
  const envToken = ctx.env.LADING_TOKEN?.trim();
  const session = (await readCredentials(ctx.configDir)).sessions[ctx.apiUrl];
  if (!envToken && !session?.refreshToken) {
    ctx.stderr.write(
      `not signed in to ${ctx.apiUrl}: run \`lading auth login\` or set LADING_TOKEN\n`,
    );
    return 1;
  }
  const now = Date.now();
  const fromEnv = envToken ? envTokenInfo(envToken) : undefined;
  const tokens = fromEnv
    ? [{ audience: fromEnv.audience, expiry: fromEnv.expiry }]
    : Object.entries(session?.tokens ?? {})
        .filter(([, t]) => Date.parse(t.expiry) > now)
        .map(([audience, t]) => ({ audience, expiry: t.expiry }));
  const info = {
    api: ctx.apiUrl,
    identity: fromEnv ? fromEnv.identity : session?.identity,
    source: envToken ? "LADING_TOKEN" : "session",
    identityProvider: envToken ? undefined : session?.identityProvider,
    tokens,
  };
  if (ctx.output === "json") {
    ctx.stdout.write(`${JSON.stringify(info, null, 2)}\n`);
  } else if (ctx.output === "id") {
    ctx.stdout.write(`${info.identity ?? ""}\n`);
  } else {
    const lines = [
      `API:                ${info.api}`,
      `Identity:           ${info.identity ?? "(unknown)"}`,
      `Credentials:        ${envToken ? "LADING_TOKEN" : "signed-in session (refreshes itself)"}`,
    ];
    if (info.identityProvider) lines.push(`Identity provider:  ${info.identityProvider}`);
    if (info.tokens.length === 0)
      lines.push("Cached tokens:      none (a token is fetched on next use)");
    for (const t of info.tokens)
      lines.push(`Token:              ${t.audience}  expires ${t.expiry}`);
    ctx.stdout.write(`${lines.join("\n")}\n`);
  }
  return 0;
}

function envTokenInfo(token: string): { audience: string; expiry: string; identity?: string } {
  try {
    const claims = decodeJwt(token);
    const aud = claims.aud === undefined ? [] : [claims.aud].flat();
    return {
      audience: aud.join(", "),
      expiry: claims.exp ? new Date(claims.exp * 1000).toISOString() : "",
      identity: claims.sub,
    };
  } catch {
    return { audience: "", expiry: "", identity: undefined };
  }
}
