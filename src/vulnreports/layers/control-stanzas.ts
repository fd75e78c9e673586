/** One RFC 822-style record: its fields by lowercased name, and the line it starts on. */
export interface ControlStanza {
  fields: Map<string, string>;
  line: number;
}

/**
 * Splits `Field: value` text (dpkg status, Python core metadata) into stanzas at blank lines.
 * Continuation lines (leading space or tab) extend the previous field, joined with `\n`, and a
 * lone ` .` stands for an empty line as deb822 writes it. Field names are case-insensitive, so
 * they are lowercased. `firstOnly` stops at the first blank line, where a METADATA body begins.
 */
export function readControlStanzas(
  text: string,
  firstOnly = false,
): { stanzas: ControlStanza[]; errors: string[] } {
  const stanzas: ControlStanza[] = [];
  const errors: string[] = [];
  let current: ControlStanza | undefined;
  let last: string | undefined;
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === "") {
      if (current !== undefined) {
        stanzas.push(current);
        if (firstOnly) return { stanzas, errors };
      }
      current = undefined;
      last = undefined;
      continue;
    }
    if (line.startsWith(" ") || line.startsWith("\t")) {
      if (current === undefined || last === undefined) {
        errors.push(`line ${i + 1}: continuation line with no field before it`);
        continue;
      }
      const more = line.trim() === "." ? "" : line.slice(1);
      current.fields.set(last, `${current.fields.get(last)}\n${more}`);
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) {
      errors.push(`line ${i + 1}: not a "Field: value" line`);
      continue;
    }
    current ??= { fields: new Map(), line: i + 1 };
    last = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    // A repeated field (Classifier:) keeps every value, one a line.
    const before = current.fields.get(last);
    current.fields.set(last, before === undefined ? value : `${before}\n${value}`);
  }
  if (current !== undefined) stanzas.push(current);
  return { stanzas, errors };
}
