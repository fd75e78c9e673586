/**
 * The line Lading writes above its own settings in a client's configuration: when the
 * credential expires and how to renew it. `--check` reads it back; re-running a configure
 * command finds (and replaces) Lading's lines by it.
 */
export function expiryComment(prefix: string, expires: string, renew: string): string {
  return `${prefix} ${expiryMarker}${expires}; renew with: ${renew}`;
}

const expiryMarker = "lading-expires=";

/** The expiry Lading wrote into a configuration file, or undefined when there is none. */
export function readExpiry(text: string): Date | undefined {
  const at = text.indexOf(expiryMarker);
  if (at < 0) return undefined;
  const value = /^[0-9T:.Z+-]{10,40}/.exec(text.slice(at + expiryMarker.length))?.[0];
  const date = value ? new Date(value) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date : undefined;
}

/** What one INI-style section (or an npmrc's top level) should hold after a configure. */
export interface IniChange {
  /** The section name; undefined for the lines before any section (npmrc has only those). */
  section?: string;
  /** Keys Lading owns there: existing lines with these keys are replaced. */
  keys: readonly string[];
  /** Replace every line of the section, not only `keys` (a section only Lading writes). */
  whole?: boolean;
  /** The lines to write at the top of the section. */
  lines: readonly string[];
}

const header = /^\s*\[([^\]]*)\]\s*$/;

/**
 * Applies `change` to an INI text (pip.conf, .pypirc, .npmrc), keeping every other line as it
 * was: Lading's previous expiry comment and the owned keys (with their indented continuation
 * lines) are dropped, the new lines go right below the section header. A missing section is
 * appended. Python's configparser refuses a section twice, so nothing is ever appended as a
 * second copy of a section.
 */
export function mergeIni(text: string, change: IniChange): string {
  const lines = text === "" ? [] : text.replace(/\n$/, "").split("\n");
  let start = change.section === undefined ? 0 : -1;
  if (change.section !== undefined) {
    start = lines.findIndex((l) => header.exec(l)?.[1].trim() === change.section) + 1;
  }
  if (start === 0 && change.section !== undefined) {
    const gap = lines.length > 0 && lines[lines.length - 1].trim() !== "" ? [""] : [];
    return [...lines, ...gap, `[${change.section}]`, ...change.lines, ""].join("\n");
  }
  let end = lines.findIndex((l, i) => i >= start && header.test(l));
  if (end < 0) end = lines.length;
  const kept: string[] = [];
  let dropping = false;
  for (const line of lines.slice(start, end)) {
    const continuation = /^\s+\S/.test(line) && !/^\s*[#;]/.test(line);
    if (dropping && continuation) continue;
    dropping = change.whole === true || owns(change.keys, line) || line.includes(expiryMarker);
    if (!dropping) kept.push(line);
  }
  return [...lines.slice(0, start), ...change.lines, ...kept, ...lines.slice(end), ""].join("\n");
}

/** The values of `key` in `[section]`, continuation lines included, split at white space. */
export function iniListValue(text: string, section: string, key: string): string[] | undefined {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => header.exec(l)?.[1].trim() === section);
  if (start < 0) return undefined;
  for (let i = start + 1; i < lines.length && !header.test(lines[i]); i++) {
    if (!owns([key], lines[i])) continue;
    const values = [lines[i].slice(lines[i].search(/[=:]/) + 1)];
    while (i + 1 < lines.length && /^\s+\S/.test(lines[i + 1])) values.push(lines[++i]);
    return values.join(" ").split(/\s+/).filter(Boolean);
  }
  return undefined;
}

function owns(keys: readonly string[], line: string): boolean {
  const eq = line.indexOf("=");
  const key = (eq >= 0 ? line.slice(0, eq) : line.split(":", 1)[0]).trim();
  return keys.includes(key);
}
