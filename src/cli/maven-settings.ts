import { CliError } from "./api-client.ts";

/** The server, repository and profile id Lading's Maven settings use. */
export const mavenServerId = "lading";

/** What a Maven settings.xml needs to install from and deploy to Lading. */
export interface MavenSettingsEntry {
  username: string;
  password: string;
  /** The repository URL, `<registry>/java/<org>/`. */
  url: string;
  /** The comment line with the expiry (client-config-text expiryComment). */
  comment: string;
}

const empty = `<?xml version="1.0" encoding="UTF-8"?>
<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">
</settings>
`;

/**
 * Adds Lading to a settings.xml (or a new one): a `<server>` with the credentials, a profile
 * with the repository, active by default. Each part sits between `lading-begin`/`lading-end`
 * comments, so running it again replaces exactly those parts and every other server, mirror
 * and profile stays as it was.
 */
export function mergeMavenSettings(existing: string | undefined, entry: MavenSettingsEntry) {
  let text = existing?.trim() ? existing : empty;
  for (const part of ["server", "profile", "active-profile"]) text = removePart(text, part);
  if (!text.includes("</settings>")) {
    throw new CliError(["lading: the file is not a Maven settings.xml (no </settings>)"]);
  }
  const x = escapeXml;
  text = insert(text, "servers", "server", [
    `<!-- ${entry.comment} -->`,
    "<server>",
    `  <id>${mavenServerId}</id>`,
    `  <username>${x(entry.username)}</username>`,
    `  <password>${x(entry.password)}</password>`,
    "</server>",
  ]);
  text = insert(text, "profiles", "profile", [
    "<profile>",
    `  <id>${mavenServerId}</id>`,
    "  <repositories>",
    "    <repository>",
    `      <id>${mavenServerId}</id>`,
    `      <url>${x(entry.url)}</url>`,
    "      <releases><enabled>true</enabled></releases>",
    "      <snapshots><enabled>false</enabled></snapshots>",
    "    </repository>",
    "  </repositories>",
    "</profile>",
  ]);
  return insert(text, "activeProfiles", "active-profile", [
    `<activeProfile>${mavenServerId}</activeProfile>`,
  ]);
}

/** Removes the `part` block Lading wrote before, with its indentation and line end. */
function removePart(text: string, part: string): string {
  const begin = `<!-- lading-begin ${part} -->`;
  const end = `<!-- lading-end ${part} -->`;
  let out = text;
  for (let at = out.indexOf(begin); at >= 0; at = out.indexOf(begin)) {
    const stop = out.indexOf(end, at);
    if (stop < 0) break;
    const lineStart = out.lastIndexOf("\n", at) + 1;
    const from = out.slice(lineStart, at).trim() === "" ? lineStart : at;
    const after = stop + end.length;
    out = out.slice(0, from) + out.slice(out[after] === "\n" ? after + 1 : after);
  }
  return out;
}

/** Puts `lines` inside `<container>` (created before `</settings>` when missing). */
function insert(text: string, container: string, part: string, lines: string[]): string {
  const block = [`<!-- lading-begin ${part} -->`, ...lines, `<!-- lading-end ${part} -->`]
    .map((l) => `    ${l}\n`)
    .join("");
  const expanded = text.replace(`<${container}/>`, `<${container}>\n  </${container}>`);
  const close = expanded.indexOf(`</${container}>`);
  if (close >= 0) {
    const lineStart = expanded.lastIndexOf("\n", close) + 1;
    const at = expanded.slice(lineStart, close).trim() === "" ? lineStart : close;
    return expanded.slice(0, at) + block + expanded.slice(at);
  }
  const end = expanded.lastIndexOf("</settings>");
  return `${expanded.slice(0, end)}  <${container}>\n${block}  </${container}>\n${expanded.slice(end)}`;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
