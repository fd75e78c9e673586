import { randomBytes } from "node:crypto";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from "jose";
import { createApiClient, type Json, uidPath } from "../api-client.ts";
import { type CliContext, UsageError } from "../cli-context.ts";
import { parseDuration } from "../duration.ts";
import { resolveGroup } from "../names.ts";

/** Longest pull-token lifetime: 8760h (365 days, the static-key identity maximum). */
export const maxPullTokenSeconds = 8760 * 3600;

/** What `lading auth pull-token` was asked for. */
export interface PullTokenOptions {
  /** The organisation (or group) the identity is created under and registry.pull bound on. */
  parent: string;
  /** Lifetime, e.g. 720h (default). */
  ttl?: string;
  name?: string;
  /** The built-in role bound on `parent`. Default registry.pull. */
  role?: string;
  /** Who made it, for the identity's description. Default `lading auth pull-token`. */
  createdBy?: string;
}

/** A created pull token: registry login credentials. */
export interface PullToken {
  /** The static-key identity uid: the registry username. */
  username: string;
  /** The JWT signed by the identity's key: the registry password. */
  password: string;
  registry: string;
  expirationTime: string;
  roleBinding: string;
}

/**
 * Creates a pull token: a fresh ES256 key pair, a static-key identity under `parent` trusting
 * its public key until now + ttl, a registry.pull (or `role`) binding on `parent`, and a JWT signed with the
 * private key, which is then dropped. Deleting the identity revokes the token.
 */
export async function createPullToken(
  ctx: CliContext,
  options: PullTokenOptions,
): Promise<PullToken> {
  const parsed = parseDuration(options.ttl ?? "720h");
  if (parsed.error || parsed.value === undefined) throw new UsageError(`--ttl: ${parsed.error}`);
  if (parsed.value > maxPullTokenSeconds) throw new UsageError("--ttl: must be at most 8760h");
  const expiresAt = Math.floor(Date.now() / 1000) + parsed.value;
  const expirationTime = new Date(expiresAt * 1000).toISOString();
  const name = options.name ?? `pull-token-${randomBytes(4).toString("hex")}`;

  const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  const issuer = `${ctx.apiUrl}/pull-tokens`;
  const subject = `pull-token:${randomBytes(16).toString("hex")}`;

  const api = createApiClient(ctx);
  const parent = await resolveGroup(api, options.parent);
  const roleName = options.role ?? "registry.pull";
  const roles = (await api.get("/iam/v2/roles", { name: roleName })).roles as Json[];
  const role = roles?.find((r) => r.name === roleName);
  if (!role) throw new Error(`the server has no ${roleName} role`);
  const identity = await api.post(`/iam/v2/identities/${uidPath(parent)}`, {
    name,
    description: `Pull token created by ${options.createdBy ?? "lading auth pull-token"}, expires ${expirationTime}`,
    staticKeys: {
      issuer,
      subject,
      issuerKeys: JSON.stringify({ keys: [{ ...jwk, kid, alg: "ES256", use: "sig" }] }),
      expirationTime,
      audiences: [ctx.apiUrl],
    },
  });
  const username = String(identity.uid);
  let binding: Json;
  try {
    binding = await api.post(`/iam/v2/roleBindings/${uidPath(parent)}`, {
      identityUid: username,
      roleUid: role.uid,
    });
  } catch (error) {
    await api.delete(`/iam/v2/identities/${uidPath(username)}`).catch(() => {});
    throw error;
  }
  const password = await new SignJWT({})
    .setProtectedHeader({ alg: "ES256", kid, typ: "JWT" })
    .setIssuer(issuer)
    .setSubject(subject)
    .setAudience(ctx.apiUrl)
    .setIssuedAt()
    .setExpirationTime(expiresAt)
    .sign(privateKey);
  return {
    username,
    password,
    registry: ctx.registryAudience,
    expirationTime,
    roleBinding: String(binding.uid),
  };
}

/** Prints a pull token as `format` (table, json, id or env). */
export function printPullToken(ctx: CliContext, token: PullToken, format: string): void {
  const out = ctx.stdout;
  if (format === "json") {
    out.write(`${JSON.stringify(token, null, 2)}\n`);
  } else if (format === "id") {
    out.write(`${token.username}\n`);
  } else if (format === "env") {
    out.write(
      [
        `LADING_PULL_TOKEN_REGISTRY=${token.registry}`,
        `LADING_PULL_TOKEN_USERNAME=${token.username}`,
        `LADING_PULL_TOKEN_PASSWORD=${token.password}`,
        `LADING_PULL_TOKEN_EXPIRATION=${token.expirationTime}`,
        "",
      ].join("\n"),
    );
  } else {
    out.write(`${loginLines(ctx.registryUrl, token).join("\n")}\n`);
  }
}

/**
 * The table form of a pull token with login commands that work pasted as they are against the
 * registry as configured: the password is in the line (it is printed above anyway), skopeo gets
 * `--tls-verify=false` for a plain-HTTP registry, and docker, which trusts plain HTTP only on
 * loopback by itself, is told where to allow it otherwise.
 */
export function loginLines(registryUrl: string, token: PullToken): string[] {
  const plain = new URL(registryUrl).protocol === "http:";
  const loopback = /^(127\.|localhost$|\[::1\]$)/.test(new URL(registryUrl).hostname);
  const quoted = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
  const lines = [
    `Registry:  ${token.registry}`,
    `Username:  ${token.username}`,
    `Password:  ${token.password}`,
    `Expires:   ${token.expirationTime}`,
    "",
    "Log in with:",
    `  echo ${quoted(token.password)} | skopeo login${plain ? " --tls-verify=false" : ""} ${token.registry} --username ${quoted(token.username)} --password-stdin`,
    `  echo ${quoted(token.password)} | docker login ${token.registry} --username ${quoted(token.username)} --password-stdin`,
  ];
  if (plain && !loopback) {
    lines.push(
      `  (docker: the registry speaks plain HTTP; add "${token.registry}" to "insecure-registries" in /etc/docker/daemon.json first)`,
    );
  }
  lines.push(`Revoke with: lading iam identities delete ${token.username}`, "");
  return lines;
}
