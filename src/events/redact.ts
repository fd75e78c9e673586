import type { JsonObject, JsonValue } from "@bufbuild/protobuf";

/**
 * JSON keys never delivered, wherever they appear in a body: identity-provider client
 * secrets, invite codes and their key ids, static issuer keys, and any token or secret a
 * future message might carry. Removing the key (rather than blanking it) keeps a receiver from
 * mistaking "" for the real value.
 */
const secretKeys = new Set([
  "clientSecret",
  "code",
  "keyId",
  "issuerKeys",
  "token",
  "refreshToken",
  "accessToken",
  "secret",
  "password",
]);

/** Messages delivered only in part (reference §7.2): a group invite is its uid and expiry. */
const kept: Record<string, readonly string[]> = {
  "lading.iam.v2.GroupInvite": ["uid", "expirationTime"],
};

/** `body` (protojson of `bodyType`) as an event may carry it. */
export function redactBody(bodyType: string, body: JsonObject): JsonObject {
  const keep = kept[bodyType];
  if (keep) {
    const only: JsonObject = {};
    for (const key of keep) if (key in body) only[key] = body[key];
    return only;
  }
  return redactValue(body) as JsonObject;
}

function redactValue(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(redactValue);
  if (value === null || typeof value !== "object") return value;
  const out: JsonObject = {};
  for (const [key, inner] of Object.entries(value)) {
    if (!secretKeys.has(key)) out[key] = redactValue(inner as JsonValue);
  }
  return out;
}
