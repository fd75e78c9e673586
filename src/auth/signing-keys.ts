import { setTimeout as sleep } from "node:timers/promises";
import {
  type CryptoKey,
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JSONWebKeySet,
  type JWK,
} from "jose";
import type { Kysely } from "kysely";
import type { MetadataSchema } from "../store/metadata/index.ts";

const day = 24 * 60 * 60 * 1000;
/** The settings row holding the kid of the newest key: the compare-and-swap point of rotation. */
const newestKeySetting = "auth.signing_keys.newest";
const algorithm = "ES256";

/** Where signing keys live and how often they change. */
export interface SigningKeysOptions {
  db: Kysely<MetadataSchema>;
  /** A new key is made once the newest is this old. Default 30 days, a common JWKS cadence. */
  rotateAfterMs?: number;
  /**
   * The longest lifetime of a token these keys sign; a key stays published this long after it
   * stops signing. Default 30 days, the token issuer's default maximum.
   */
  maxTokenLifetimeMs?: number;
  /**
   * How long the in-memory key set is used before it is read again, so a key another replica
   * made is picked up. Default 60 seconds.
   */
  refreshAfterMs?: number;
  /**
   * Minimum gap between database reads caused by tokens with an unknown kid. A kid that shows
   * up sooner waits for the next read instead of being refused. Default 1 second: forged kids
   * cost at most one small query a second.
   */
  unknownKidReloadMs?: number;
  /** Current time in epoch milliseconds. Default `Date.now`; tests move time. */
  clock?: () => number;
}

/** The key that signs new tokens. */
export interface SigningKey {
  /** RFC 7638 thumbprint of the public key. */
  kid: string;
  privateKey: CryptoKey;
}

/** Lading's ES256 signing keys, shared by every replica through the metadata store. */
export interface SigningKeys {
  /** The newest key, made (once across all replicas) when there is none or it is too old. */
  signingKey(): Promise<SigningKey>;
  /** The public key for `kid`; undefined when no unexpired key has that kid. */
  verificationKey(kid: string): Promise<CryptoKey | undefined>;
  /** Every unexpired public key, newest first: the JWKS document. */
  jwks(): Promise<JSONWebKeySet>;
}

interface KeyEntry {
  kid: string;
  publicJwk: JWK;
  publicKey: CryptoKey;
  privateJwk: string;
  privateKey?: CryptoKey;
  createTime: number;
  expireTime: number;
}

/**
 * Creates the signing-key set. The newest key signs while it is younger than `rotateAfterMs`;
 * its `expire_time` (create time + `rotateAfterMs` + `maxTokenLifetimeMs`) bounds every token
 * it can have signed, so it leaves the JWKS, and the table, at that time (DESIGN §5).
 */
export function createSigningKeys(options: SigningKeysOptions): SigningKeys {
  const { db } = options;
  const rotateAfterMs = options.rotateAfterMs ?? 30 * day;
  const maxTokenLifetimeMs = options.maxTokenLifetimeMs ?? 30 * day;
  const refreshAfterMs = options.refreshAfterMs ?? 60_000;
  const unknownKidReloadMs = options.unknownKidReloadMs ?? 1000;
  const clock = options.clock ?? Date.now;

  let entries = new Map<string, KeyEntry>();
  let newestMarker: string | undefined;
  let loadedAt = Number.NEGATIVE_INFINITY;
  let loading: Promise<void> | undefined;
  let unknownKidReload: Promise<void> | undefined;
  let rotating: Promise<KeyEntry> | undefined;

  async function read(): Promise<void> {
    const now = new Date(clock()).toISOString();
    await db.deleteFrom("signing_keys").where("expire_time", "<=", now).execute();
    // Marker before keys: the key committed with this marker is then always among the rows,
    // so a compare-and-swap from this marker cannot add a second key beside an unseen one.
    const marker = await db
      .selectFrom("settings")
      .select("value")
      .where("key", "=", newestKeySetting)
      .executeTakeFirst();
    const rows = await db
      .selectFrom("signing_keys")
      .selectAll()
      .where("expire_time", ">", now)
      .execute();
    const next = new Map<string, KeyEntry>();
    for (const row of rows) {
      const known = entries.get(row.kid);
      if (known) {
        next.set(row.kid, known);
        continue;
      }
      const publicJwk = JSON.parse(row.public_jwk) as JWK;
      next.set(row.kid, {
        kid: row.kid,
        publicJwk,
        publicKey: (await importJWK(publicJwk, algorithm)) as CryptoKey,
        privateJwk: row.private_jwk,
        createTime: Date.parse(row.create_time),
        expireTime: Date.parse(row.expire_time),
      });
    }
    entries = next;
    newestMarker = marker?.value;
    loadedAt = performance.now();
  }

  function reload(): Promise<void> {
    loading ??= read().finally(() => {
      loading = undefined;
    });
    return loading;
  }

  async function fresh(): Promise<void> {
    if (performance.now() - loadedAt >= refreshAfterMs) await reload();
  }

  function newest(): KeyEntry | undefined {
    let best: KeyEntry | undefined;
    for (const e of entries.values()) {
      if (
        !best ||
        e.createTime > best.createTime ||
        (e.createTime === best.createTime && e.kid > best.kid)
      ) {
        best = e;
      }
    }
    return best;
  }

  function canSign(e: KeyEntry | undefined): e is KeyEntry {
    const now = clock();
    return !!e && now < e.createTime + rotateAfterMs && now + maxTokenLifetimeMs <= e.expireTime;
  }

  async function create(): Promise<boolean> {
    const expected = newestMarker;
    const pair = await generateKeyPair(algorithm, { extractable: true });
    const publicJwk = await exportJWK(pair.publicKey);
    const kid = await calculateJwkThumbprint(publicJwk);
    const now = clock();
    const stamp = { kid, alg: algorithm, use: "sig" };
    const row = {
      kid,
      public_jwk: JSON.stringify({ ...publicJwk, ...stamp }),
      private_jwk: JSON.stringify({ ...(await exportJWK(pair.privateKey)), ...stamp }),
      create_time: new Date(now).toISOString(),
      expire_time: new Date(now + rotateAfterMs + maxTokenLifetimeMs).toISOString(),
    };
    return db.transaction().execute(async (trx) => {
      const swapped =
        expected === undefined
          ? (
              await trx
                .insertInto("settings")
                .values({ key: newestKeySetting, value: kid })
                .onConflict((oc) => oc.column("key").doNothing())
                .executeTakeFirst()
            ).numInsertedOrUpdatedRows
          : (
              await trx
                .updateTable("settings")
                .set({ value: kid })
                .where("key", "=", newestKeySetting)
                .where("value", "=", expected)
                .executeTakeFirst()
            ).numUpdatedRows;
      if (!swapped) return false;
      await trx.insertInto("signing_keys").values(row).execute();
      return true;
    });
  }

  async function rotate(): Promise<KeyEntry> {
    for (let attempt = 0; attempt < 3; attempt++) {
      await create();
      await reload();
      const candidate = newest();
      if (canSign(candidate)) return candidate;
    }
    throw new Error("no usable signing key after rotation");
  }

  return {
    async signingKey() {
      await fresh();
      let key = newest();
      if (!canSign(key)) {
        await reload();
        key = newest();
      }
      if (!canSign(key)) {
        rotating ??= rotate().finally(() => {
          rotating = undefined;
        });
        key = await rotating;
      }
      key.privateKey ??= (await importJWK(JSON.parse(key.privateJwk), algorithm)) as CryptoKey;
      return { kid: key.kid, privateKey: key.privateKey };
    },

    async verificationKey(kid) {
      await fresh();
      if (!entries.has(kid)) {
        unknownKidReload ??= (async () => {
          const wait = loadedAt + unknownKidReloadMs - performance.now();
          if (wait > 0) await sleep(wait);
          await reload();
        })().finally(() => {
          unknownKidReload = undefined;
        });
        await unknownKidReload;
      }
      const entry = entries.get(kid);
      return entry && entry.expireTime > clock() ? entry.publicKey : undefined;
    },

    async jwks() {
      await fresh();
      const now = clock();
      const keys = [...entries.values()]
        .filter((e) => e.expireTime > now)
        .sort((a, b) => b.createTime - a.createTime || (a.kid < b.kid ? 1 : -1))
        .map((e) => ({ ...e.publicJwk }));
      return { keys };
    },
  };
}
