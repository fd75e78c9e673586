import { expiryComment, iniListValue, mergeIni } from "./client-config-text.ts";

/** A pull token and the repository it opens, as written into a client's configuration. */
export interface ClientCredential {
  username: string;
  password: string;
  /** The repository URL, `<registry>/<ecosystem>/<org>/`. */
  url: string;
  /** ISO 8601. */
  expires: string;
  /** The command that writes fresh credentials. */
  renew: string;
  /** npm: only this scope's packages come from Lading. */
  scope?: string;
}

/** pip.conf with `[global] index-url` pointing at the organisation's simple index. */
export function pipConf(text: string, c: ClientCredential): string {
  const url = new URL(`${c.url}simple/`);
  // The uid's "/" may not appear in user info, and pip decodes the whole URL once before
  // parsing it, so it is encoded twice: the repository reads the `%2F` pip sends as "/".
  url.username = encodeURIComponent(c.username).replaceAll("%2F", "%252F");
  url.password = encodeURIComponent(c.password);
  return mergeIni(text, {
    section: "global",
    keys: ["index-url"],
    lines: [expiryComment("#", c.expires, c.renew), `index-url = ${url.href}`],
  });
}

/** ~/.pypirc with a `[lading]` repository for `twine upload --repository lading`. */
export function pypirc(text: string, c: ClientCredential): string {
  // Without [distutils] twine knows pypi and testpypi; a section twine should read is listed.
  const servers = iniListValue(text, "distutils", "index-servers") ?? ["pypi", "testpypi"];
  if (!servers.includes("lading")) servers.push("lading");
  const listed = mergeIni(text, {
    section: "distutils",
    keys: ["index-servers"],
    lines: ["index-servers =", ...servers.map((s) => `    ${s}`)],
  });
  return mergeIni(listed, {
    section: "lading",
    keys: [],
    whole: true,
    lines: [
      expiryComment("#", c.expires, c.renew),
      `repository = ${c.url}`,
      `username = ${c.username}`,
      `password = ${c.password}`,
    ],
  });
}

/** .npmrc: the (scope's) registry and Basic credentials for that registry's path only. */
export function npmrc(text: string, c: ClientCredential): string {
  const registryKey = c.scope ? `${c.scope}:registry` : "registry";
  // npm sends credentials keyed by the registry URL without its scheme ("nerf dart").
  const authKey = `${c.url.replace(/^https?:/, "")}:_auth`;
  const auth = Buffer.from(`${c.username}:${c.password}`).toString("base64");
  return mergeIni(text, {
    keys: [registryKey, authKey],
    lines: [
      expiryComment("#", c.expires, c.renew),
      `${registryKey}=${c.url}`,
      `${authKey}=${auth}`,
    ],
  });
}
