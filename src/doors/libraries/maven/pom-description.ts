/** How much of a pom is read for its description. */
export const maxPomPrefix = 256 * 1024;
/** Longest description kept from a pom. */
const maxDescription = 1000;

const predefined: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/**
 * The project's `<description>`, else its `<name>`, from the start of a pom: only elements that
 * are direct children of the root count (a `<name>` inside `<organization>` or `<license>` is
 * not the project's). A forward-only scan in linear time: comments, processing instructions
 * and the DOCTYPE are skipped, CDATA is kept as text, and only the five predefined entities and
 * character references are decoded, so no entity is ever expanded.
 */
export function pomDescription(pom: string): string {
  const found: Record<string, string> = {};
  let depth = 0;
  let capturing: string | undefined;
  let text = "";
  let i = 0;
  while (i < pom.length) {
    const lt = pom.indexOf("<", i);
    if (lt < 0) break;
    if (capturing) text += decodeEntities(pom.slice(i, lt));
    if (pom.startsWith("<!--", lt)) {
      i = skipTo(pom, "-->", lt + 4);
      continue;
    }
    if (pom.startsWith("<![CDATA[", lt)) {
      const end = pom.indexOf("]]>", lt + 9);
      if (end < 0) break;
      if (capturing) text += pom.slice(lt + 9, end);
      i = end + 3;
      continue;
    }
    if (pom.startsWith("<?", lt) || pom.startsWith("<!", lt)) {
      i = skipTo(pom, ">", lt + 2);
      continue;
    }
    const gt = pom.indexOf(">", lt);
    if (gt < 0) break;
    const tag = pom.slice(lt + 1, gt);
    i = gt + 1;
    if (tag.startsWith("/")) {
      if (capturing && depth === 2) {
        found[capturing] ??= text;
        capturing = undefined;
        text = "";
      }
      depth--;
      if (depth <= 0) break;
    } else if (!tag.endsWith("/")) {
      depth++;
      const name = tag.split(/[\s/]/, 1)[0].replace(/^.*:/, "");
      if (depth === 2 && (name === "description" || name === "name")) capturing = name;
    }
  }
  const chosen = (found.description ?? "").trim() || (found.name ?? "").trim();
  return chosen.replace(/\s+/g, " ").slice(0, maxDescription);
}

function skipTo(text: string, end: string, from: number): number {
  const at = text.indexOf(end, from);
  return at < 0 ? text.length : at + end.length;
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-z]{2,4});/g, (whole, ref: string) => {
    if (ref.startsWith("#")) {
      const code = ref[1] === "x" ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return predefined[ref] ?? whole;
  });
}
