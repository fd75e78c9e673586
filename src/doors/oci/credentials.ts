/** The user name and password of `Basic` credentials, or undefined. */
export function basicCredentials(
  authorization: string | undefined,
): { user: string; password: string } | undefined {
  const basic = /^Basic\s+(\S+)$/i.exec(authorization?.trim() ?? "");
  if (!basic) return undefined;
  const decoded = Buffer.from(basic[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * The token of `Bearer <token>` or `Basic base64(_token:<token>)`; undefined without
 * credentials, "" for Basic credentials with another user name.
 */
export function credentialToken(authorization: string | undefined): string | undefined {
  const header = authorization?.trim();
  if (!header) return undefined;
  const bearer = /^Bearer\s+(\S+)$/i.exec(header);
  if (bearer) return bearer[1];
  const basic = /^Basic\s+(\S+)$/i.exec(header);
  if (!basic) return "";
  const decoded = Buffer.from(basic[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0 || decoded.slice(0, colon) !== "_token") return "";
  return decoded.slice(colon + 1);
}
