import type { Kysely } from "kysely";
import { isRegistryPath } from "../../registry/index.ts";
import {
  type RegistryAction,
  registryActions,
  resolveRepoPath,
} from "../../registry/registry-access.ts";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import { ociError } from "./oci-error.ts";
import type { AccessEntry, RegistryAuth, RegistryCaller } from "./registry-auth.ts";

/** What the token endpoint needs. */
export interface TokenEndpointOptions {
  db: Kysely<MetadataSchema>;
  auth: RegistryAuth;
}

/** The Docker token-spec response. */
export interface TokenResponse {
  token: string;
  access_token: string;
  expires_in: number;
  issued_at: string;
}

/**
 * `GET /token?service=<audience>&scope=repository:<name>:<actions>…` (Docker token spec).
 * Credentials: none (anonymous: pull on the public organisation only, reaching its free tier;
 * a signed-in caller without a grant there gets the same, never less), `Basic _token:<Lading
 * token>` or `Bearer <Lading token>` for the registry audience (another audience → 403), or a
 * pull token `Basic <static-key identity uid>:<JWT signed by its key>` (read at every request,
 * so deleting the identity revokes it at once). Each
 * requested scope is granted the intersection of its actions with what the caller holds on
 * that one repository (`*` asks for everything held); a partial grant is not an error.
 */
export function createTokenEndpoint(options: TokenEndpointOptions) {
  const { db, auth } = options;

  return async function tokenEndpoint(
    authorization: string | undefined,
    query: URLSearchParams,
  ): Promise<TokenResponse> {
    const service = query.get("service");
    if (service !== null && service !== auth.audience) {
      throw ociError(400, "UNSUPPORTED", `service must be ${auth.audience}`, { service });
    }
    const scopes = query
      .getAll("scope")
      .flatMap((s) => s.split(" "))
      .filter((s) => s !== "");
    const caller: RegistryCaller | undefined = authorization
      ? await auth.identify(authorization)
      : undefined;
    if (caller?.scoped) {
      throw ociError(
        401,
        "UNAUTHORIZED",
        "a registry token cannot be exchanged; use a Lading token",
      );
    }
    const access: AccessEntry[] = [];
    const freeTier = new Set<string>();
    for (const scope of scopes) {
      const parsed = parseScope(scope);
      if (!parsed) continue;
      const target = await resolveRepoPath(db, parsed.name);
      const held = caller
        ? caller.actions(target)
        : new Set<RegistryAction>(auth.isPublic(target) ? ["pull"] : []);
      const wanted = parsed.actions.includes("*") ? registryActions : parsed.actions;
      const actions = registryActions.filter((a) => wanted.includes(a) && held.has(a));
      if (actions.includes("pull") && (caller?.freeTierOnly(target) ?? true)) {
        freeTier.add(parsed.name);
      }
      const existing = access.find((e) => e.name === parsed.name);
      if (existing) {
        existing.actions = registryActions.filter(
          (a) => existing.actions.includes(a) || actions.includes(a),
        );
      } else access.push({ type: "repository", name: parsed.name, actions });
    }
    const token = await auth.mint(caller?.subject ?? "anonymous", access, [...freeTier]);
    return {
      token,
      access_token: token,
      expires_in: auth.tokenTtlSeconds,
      issued_at: new Date().toISOString(),
    };
  };
}

/** `repository:<name>:<action>[,<action>…]`; other resource types are ignored. */
function parseScope(scope: string): { name: string; actions: string[] } | undefined {
  const first = scope.indexOf(":");
  const last = scope.lastIndexOf(":");
  if (first < 0 || last === first || scope.slice(0, first) !== "repository") return undefined;
  const name = scope.slice(first + 1, last);
  if (!isRegistryPath(name)) return undefined;
  return { name, actions: scope.slice(last + 1).split(",") };
}
