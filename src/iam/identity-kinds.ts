import { create } from "@bufbuild/protobuf";
import { claimMatchProblems } from "../auth/claim-match.ts";
import { issuerKeysProblem, maxStaticKeysLifetimeMs } from "../auth/static-keys.ts";
import {
  type ClaimMatch,
  ClaimMatchSchema,
  type Identity,
  IdentitySchema,
  type StaticKeys,
  StaticKeysSchema,
} from "../gen/lading/iam/v2/identities_pb.js";
import type { OutboundGuard } from "../outbound/index.ts";
import type { Violations } from "../rpc/index.ts";
import type { IdentitiesTable } from "../store/metadata/index.ts";

/** The kind-specific columns of an identity row. */
export type KindColumns = Pick<
  IdentitiesTable,
  | "issuer"
  | "subject"
  | "issuer_pattern"
  | "subject_pattern"
  | "audience"
  | "claims"
  | "issuer_keys"
  | "expire_time"
>;

/** Paths of the kind-specific fields an update may name. */
export const kindPaths = [
  "claim_match.issuer",
  "claim_match.subject",
  "claim_match.issuer_pattern",
  "claim_match.subject_pattern",
  "claim_match.audience",
  "claim_match.claims",
  "static_keys.issuer",
  "static_keys.subject",
  "static_keys.issuer_keys",
  "static_keys.expiration_time",
  "static_keys.audiences",
];

/** The API message of a stored row. */
export function identityFromRow(row: IdentitiesTable): Identity {
  const { claimMatch, staticKeys } = kindFromRow(row);
  return create(IdentitySchema, {
    uid: row.uid,
    name: row.name,
    description: row.description,
    lastSeenTime: row.last_seen_time ?? undefined,
    createTime: row.create_time,
    updateTime: row.update_time,
    claimMatch,
    staticKeys,
    email: row.email,
  });
}

/** The claim match or static keys a row stores (neither for a plain identity). */
export function kindFromRow(row: IdentitiesTable): {
  claimMatch?: ClaimMatch;
  staticKeys?: StaticKeys;
} {
  if (row.issuer_keys) {
    return {
      staticKeys: create(StaticKeysSchema, {
        issuer: row.issuer,
        subject: row.subject,
        issuerKeys: row.issuer_keys,
        expirationTime: row.expire_time ?? "",
        audiences: row.audience ? [row.audience] : [],
      }),
    };
  }
  if (row.issuer || row.subject || row.issuer_pattern || row.subject_pattern) {
    return {
      claimMatch: create(ClaimMatchSchema, {
        issuer: row.issuer,
        subject: row.subject,
        issuerPattern: row.issuer_pattern,
        subjectPattern: row.subject_pattern,
        audience: row.audience,
        claims: parseClaims(row.claims),
      }),
    };
  }
  return {};
}

/** The paths of kind-specific fields set to non-default values in `identity`. */
export function populatedKindPaths(identity: Identity): string[] {
  const out: string[] = [];
  const cm = identity.claimMatch;
  if (cm) {
    if (cm.issuer) out.push("claim_match.issuer");
    if (cm.subject) out.push("claim_match.subject");
    if (cm.issuerPattern) out.push("claim_match.issuer_pattern");
    if (cm.subjectPattern) out.push("claim_match.subject_pattern");
    if (cm.audience) out.push("claim_match.audience");
    if (Object.keys(cm.claims).length > 0) out.push("claim_match.claims");
  }
  const sk = identity.staticKeys;
  if (sk) {
    if (sk.issuer) out.push("static_keys.issuer");
    if (sk.subject) out.push("static_keys.subject");
    if (sk.issuerKeys) out.push("static_keys.issuer_keys");
    if (sk.expirationTime) out.push("static_keys.expiration_time");
    if (sk.audiences.length > 0) out.push("static_keys.audiences");
  }
  return out;
}

/** `current` with the kind-specific `paths` taken from `input`. */
export function applyKindPaths(
  current: { claimMatch?: ClaimMatch; staticKeys?: StaticKeys },
  input: Identity,
  paths: Set<string>,
): { claimMatch: ClaimMatch; staticKeys: StaticKeys } {
  const cm = create(ClaimMatchSchema, current.claimMatch ?? {});
  const sk = create(StaticKeysSchema, current.staticKeys ?? {});
  const inCm = input.claimMatch ?? create(ClaimMatchSchema);
  const inSk = input.staticKeys ?? create(StaticKeysSchema);
  if (paths.has("claim_match.issuer")) cm.issuer = inCm.issuer;
  if (paths.has("claim_match.subject")) cm.subject = inCm.subject;
  if (paths.has("claim_match.issuer_pattern")) cm.issuerPattern = inCm.issuerPattern;
  if (paths.has("claim_match.subject_pattern")) cm.subjectPattern = inCm.subjectPattern;
  if (paths.has("claim_match.audience")) cm.audience = inCm.audience;
  if (paths.has("claim_match.claims")) cm.claims = { ...inCm.claims };
  if (paths.has("static_keys.issuer")) sk.issuer = inSk.issuer;
  if (paths.has("static_keys.subject")) sk.subject = inSk.subject;
  if (paths.has("static_keys.issuer_keys")) sk.issuerKeys = inSk.issuerKeys;
  if (paths.has("static_keys.expiration_time")) sk.expirationTime = inSk.expirationTime;
  if (paths.has("static_keys.audiences")) sk.audiences = [...inSk.audiences];
  return { claimMatch: cm, staticKeys: sk };
}

/**
 * Validates the kind of an identity created at `createTime` and returns its columns. A claim
 * match or static keys with every field empty counts as absent; a static keys expiration time
 * left empty becomes `createTime` + 365 days. A claim match's exact issuer must be one the
 * outbound guard may fetch from (static keys are never fetched).
 */
export function checkKind(
  v: Violations,
  outbound: Pick<OutboundGuard, "destinationProblem">,
  claimMatch: ClaimMatch | undefined,
  staticKeys: StaticKeys | undefined,
  createTime: string,
): KindColumns {
  const hasCm =
    !!claimMatch &&
    !!(
      claimMatch.issuer ||
      claimMatch.subject ||
      claimMatch.issuerPattern ||
      claimMatch.subjectPattern ||
      claimMatch.audience ||
      Object.keys(claimMatch.claims).length > 0
    );
  const hasSk =
    !!staticKeys &&
    !!(
      staticKeys.issuer ||
      staticKeys.subject ||
      staticKeys.issuerKeys ||
      staticKeys.expirationTime ||
      staticKeys.audiences.length > 0
    );
  const none: KindColumns = {
    issuer: "",
    subject: "",
    issuer_pattern: "",
    subject_pattern: "",
    audience: "",
    claims: "{}",
    issuer_keys: "",
    expire_time: null,
  };
  if (hasCm && hasSk) {
    v.add("static_keys", "at most one of claim_match and static_keys may be set");
    return none;
  }
  if (hasCm && claimMatch) {
    for (const [field, description] of claimMatchProblems(claimMatch, outbound)) {
      v.add(`claim_match.${field}`, description);
    }
    return {
      ...none,
      issuer: claimMatch.issuer,
      subject: claimMatch.subject,
      issuer_pattern: claimMatch.issuerPattern,
      subject_pattern: claimMatch.subjectPattern,
      audience: claimMatch.audience,
      claims: JSON.stringify(claimMatch.claims),
    };
  }
  if (hasSk && staticKeys) return { ...none, ...checkStaticKeys(v, staticKeys, createTime) };
  return none;
}

function checkStaticKeys(v: Violations, sk: StaticKeys, createTime: string): Partial<KindColumns> {
  if (sk.issuer === "" || sk.issuer.length > 1024) {
    v.add("static_keys.issuer", "must be 1 to 1024 characters");
  }
  if (sk.subject === "" || sk.subject.length > 1024) {
    v.add("static_keys.subject", "must be 1 to 1024 characters");
  }
  const keysProblem = sk.issuerKeys === "" ? "is required" : issuerKeysProblem(sk.issuerKeys);
  if (keysProblem) v.add("static_keys.issuer_keys", keysProblem);
  if (sk.audiences.length > 1 || sk.audiences.some((a) => a === "" || a.length > 1024)) {
    v.add("static_keys.audiences", "must hold at most one non-empty audience");
  }
  const latest = Date.parse(createTime) + maxStaticKeysLifetimeMs;
  let expire = new Date(latest).toISOString();
  if (sk.expirationTime !== "") {
    const at = /^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})$/.test(sk.expirationTime)
      ? Date.parse(sk.expirationTime)
      : Number.NaN;
    if (Number.isNaN(at) || at <= Date.now() || at > latest) {
      v.add(
        "static_keys.expiration_time",
        `must be an RFC 3339 time in the future and at most 365 days after the identity's creation (${expire})`,
      );
    } else expire = new Date(at).toISOString();
  } else if (latest <= Date.now()) {
    v.add("static_keys.expiration_time", "the identity is more than 365 days old");
  }
  return {
    issuer: sk.issuer,
    subject: sk.subject,
    issuer_keys: sk.issuerKeys,
    audience: sk.audiences[0] ?? "",
    expire_time: expire,
  };
}

function parseClaims(json: string): Record<string, string> {
  try {
    const value = JSON.parse(json || "{}");
    return typeof value === "object" && value !== null ? value : {};
  } catch {
    return {};
  }
}
