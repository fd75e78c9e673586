import assert from "node:assert/strict";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import type { RegistryTestServer } from "./registry-server.ts";

/** The issuer of the pull tokens {@link createPullToken} makes; their key id is `pull`. */
export const pullTokenIssuer = "https://pull-tokens.invalid";

/**
 * A pull token as `lading auth pull-token` makes one: a static-key identity in acme (subject
 * `puller`) bound to `roleUid` there, and a JWT for the registry host signed with its key.
 */
export async function createPullToken(r: RegistryTestServer, roleUid: string) {
  const api = async (path: string, body: unknown) => {
    const res = await fetch(`${r.server.apiUrl}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${r.server.org.token}` },
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as Record<string, string>;
    assert.equal(res.status, 200, JSON.stringify(answer));
    return answer;
  };
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: "pull", alg: "ES256", use: "sig" };
  const created = await api(`/iam/v2/identities/${r.server.org.groupUid}`, {
    name: "pull token",
    staticKeys: {
      issuer: pullTokenIssuer,
      subject: "puller",
      issuerKeys: JSON.stringify({ keys: [jwk] }),
    },
  });
  const binding = await api(`/iam/v2/roleBindings/${r.server.org.groupUid}`, {
    identityUid: created.uid,
    roleUid,
  });
  const jwt = await new SignJWT({})
    .setProtectedHeader({ alg: "ES256", kid: "pull" })
    .setIssuer(pullTokenIssuer)
    .setSubject("puller")
    .setAudience(r.host)
    .setIssuedAt()
    .setExpirationTime("30d")
    .sign(privateKey);
  return { uid: created.uid, bindingUid: binding.uid, jwt, privateKey };
}
