import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { unauthenticated } from "../errors/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";

/** ErrorInfo reasons of refused refresh tokens (UNAUTHENTICATED, HTTP 401). */
export const refreshReasons = {
  /** Unknown, expired or revoked (by logout or reuse). */
  invalid: "REFRESH_TOKEN_INVALID",
  /** Already exchanged: the whole family is revoked now. */
  reused: "REFRESH_TOKEN_REUSED",
} as const;

/** How refresh tokens live. */
export interface RefreshTokensOptions {
  db: Kysely<MetadataSchema>;
  /** Absolute lifetime of a family (one sign-in's chain of rotations). Default 30 days. */
  familyLifetimeMs?: number;
  /** Current time in epoch milliseconds. Default `Date.now`. */
  clock?: () => number;
}

/** A refresh token just handed out. */
export interface IssuedRefreshToken {
  token: string;
  family: string;
  identityUid: string;
  expireTime: string;
}

/** Opaque, rotating refresh tokens kept as SHA-256 hashes (DESIGN §5). */
export interface RefreshTokens {
  /** A new family's first token for `identityUid`. */
  issue(identityUid: string): Promise<IssuedRefreshToken>;
  /**
   * Spends `token` and returns its successor in the same family (same absolute expiry).
   * A token spent before revokes its whole family. Throws UNAUTHENTICATED otherwise.
   */
  rotate(token: string): Promise<IssuedRefreshToken>;
  /** Revokes the family of `token`. Throws UNAUTHENTICATED for an unknown token. */
  revokeFamily(token: string): Promise<void>;
  /** Revokes the family `family`, e.g. when its identity is gone. */
  revoke(family: string): Promise<void>;
}

const prefix = "lrt_";

/** SHA-256 (hex) of a secret presented by a client. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** Creates the refresh-token store over `db`. */
export function createRefreshTokens(options: RefreshTokensOptions): RefreshTokens {
  const { db } = options;
  const lifetimeMs = options.familyLifetimeMs ?? 30 * 86_400_000;
  const clock = options.clock ?? Date.now;
  const iso = (ms = clock()) => new Date(ms).toISOString();

  async function insert(identityUid: string, family: string, expireTime: string) {
    const token = `${prefix}${randomBytes(32).toString("base64url")}`;
    await db
      .insertInto("refresh_tokens")
      .values({
        token_hash: hashSecret(token),
        family,
        identity_uid: identityUid,
        used_time: null,
        revoked_time: null,
        expire_time: expireTime,
        create_time: iso(),
      })
      .execute();
    return { token, family, identityUid, expireTime };
  }

  async function revoke(family: string): Promise<void> {
    await db
      .updateTable("refresh_tokens")
      .set({ revoked_time: iso() })
      .where("family", "=", family)
      .where("revoked_time", "is", null)
      .execute();
  }

  const invalid = () =>
    unauthenticated(refreshReasons.invalid, "the refresh token is unknown, expired or revoked");

  return {
    async issue(identityUid) {
      await db.deleteFrom("refresh_tokens").where("expire_time", "<", iso()).execute();
      return insert(identityUid, randomUUID(), iso(clock() + lifetimeMs));
    },

    async rotate(token) {
      const hash = hashSecret(token);
      const time = iso();
      const row = await db
        .selectFrom("refresh_tokens")
        .selectAll()
        .where("token_hash", "=", hash)
        .executeTakeFirst();
      if (!row || row.revoked_time !== null || row.expire_time <= time) throw invalid();
      const spent = await db
        .updateTable("refresh_tokens")
        .set({ used_time: time })
        .where("token_hash", "=", hash)
        .where("used_time", "is", null)
        .where("revoked_time", "is", null)
        .executeTakeFirst();
      if (!spent.numUpdatedRows) {
        await revoke(row.family);
        throw unauthenticated(
          refreshReasons.reused,
          "the refresh token was already used: every token of its sign-in is revoked",
        );
      }
      return insert(row.identity_uid, row.family, row.expire_time);
    },

    async revokeFamily(token) {
      const row = await db
        .selectFrom("refresh_tokens")
        .select("family")
        .where("token_hash", "=", hashSecret(token))
        .executeTakeFirst();
      if (!row) throw invalid();
      await revoke(row.family);
    },

    revoke,
  };
}
