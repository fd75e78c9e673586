/** One segment of a compiled template: a literal, `*` (one segment) or `**` (the rest). */
type SegmentMatcher = { kind: "literal"; text: string } | { kind: "*" } | { kind: "**" };

/** A variable of a template: the field path it binds and the segments it spans. */
export interface TemplateVariable {
  /** Field path as written in the template, e.g. `group.uid`. */
  fieldPath: string[];
  /** Index of the first segment the variable spans. */
  start: number;
  /** Index after the last segment it spans. */
  end: number;
}

/** A google.api.http path template, compiled. */
export interface PathTemplate {
  source: string;
  segments: SegmentMatcher[];
  variables: TemplateVariable[];
  /** The custom verb (`:verb` suffix, AIP-136), if any. */
  verb: string | undefined;
  /** Literal segment count, for choosing the most specific of several matching templates. */
  literals: number;
}

/** The result of a parser: a value or an error text, never both. */
export type Parsed<T> = { value: T; error?: undefined } | { value?: undefined; error: string };

const LITERAL = /^[A-Za-z0-9._~!$&'()+,;=@-]+$/;
const FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Parses a path template (`/iam/v2/identities/{identity.uid=**}`, `/v1/{name=rooms/*}:verb`)
 * per the google.api.http grammar. One `**` is allowed; literals and `*` may follow it (the v1
 * `/registry/v1/repos/{repo_id=**}/digests/{digest}/vulnreport`), so it spans whatever the
 * segments after it leave.
 */
export function parsePathTemplate(source: string): Parsed<PathTemplate> {
  if (!source.startsWith("/")) return { error: `template ${source} must start with /` };
  const tokens = splitTokens(source.slice(1));
  const last = tokens.length - 1;
  const colon = outerColon(tokens[last]);
  let verb: string | undefined;
  if (colon >= 0) {
    verb = tokens[last].slice(colon + 1);
    tokens[last] = tokens[last].slice(0, colon);
    if (!LITERAL.test(verb)) return { error: `template ${source} has an invalid verb` };
  }
  const segments: SegmentMatcher[] = [];
  const variables: TemplateVariable[] = [];
  for (const token of tokens) {
    if (token.startsWith("{")) {
      if (!token.endsWith("}")) return { error: `template ${source} has an unclosed variable` };
      const inner = token.slice(1, -1);
      const eq = inner.indexOf("=");
      const fieldPath = (eq < 0 ? inner : inner.slice(0, eq)).split(".");
      if (!fieldPath.every((f) => FIELD.test(f))) {
        return { error: `template ${source} has an invalid field path ${inner}` };
      }
      const start = segments.length;
      for (const part of (eq < 0 ? "*" : inner.slice(eq + 1)).split("/")) {
        const matcher = segmentMatcher(part);
        if (!matcher) return { error: `template ${source} has an invalid segment ${part}` };
        segments.push(matcher);
      }
      variables.push({ fieldPath, start, end: segments.length });
    } else {
      const matcher = segmentMatcher(token);
      if (!matcher) return { error: `template ${source} has an invalid segment ${token}` };
      segments.push(matcher);
    }
  }
  if (segments.filter((s) => s.kind === "**").length > 1) {
    return { error: `template ${source} may have only one **` };
  }
  const literals = segments.filter((s) => s.kind === "literal").length;
  return { value: { source, segments, variables, verb, literals } };
}

function splitTokens(body: string): string[] {
  const tokens: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of body) {
    if (ch === "{") depth++;
    if (ch === "}") depth--;
    if (ch === "/" && depth === 0) {
      tokens.push(current);
      current = "";
    } else {
      current += ch;
    }
  }
  tokens.push(current);
  return tokens;
}

function outerColon(token: string): number {
  let depth = 0;
  for (let i = 0; i < token.length; i++) {
    if (token[i] === "{") depth++;
    else if (token[i] === "}") depth--;
    else if (token[i] === ":" && depth === 0) return i;
  }
  return -1;
}

function segmentMatcher(part: string): SegmentMatcher | undefined {
  if (part === "*" || part === "**") return { kind: part };
  return LITERAL.test(part) ? { kind: "literal", text: part } : undefined;
}

/** Variable values of a matched path, keyed by dotted field path, percent-decoded. */
export type PathBindings = Map<string, string>;

/**
 * Matches a raw (still percent-encoded) URL path against a template. Each segment is decoded
 * on its own, so `%2F` inside a segment becomes `/` in the value. `**` spans at least one
 * segment. Returns undefined when the path does not match; when a segment is not valid
 * percent-encoding the error is the dotted field path of its variable.
 */
export function matchPathTemplate(
  template: PathTemplate,
  rawPath: string,
): Parsed<PathBindings> | undefined {
  if (!rawPath.startsWith("/")) return undefined;
  let path = rawPath.slice(1);
  if (template.verb !== undefined) {
    const suffix = `:${template.verb}`;
    if (!path.endsWith(suffix)) return undefined;
    path = path.slice(0, -suffix.length);
  }
  const parts = path.split("/");
  const { segments } = template;
  const deep = segments.findIndex((s) => s.kind === "**");
  if (deep >= 0 ? parts.length < segments.length : parts.length !== segments.length) {
    return undefined;
  }
  // Segment i of the template covers part at(i); `**` covers the extra parts too.
  const extra = parts.length - segments.length;
  const at = (i: number) => (deep >= 0 && i > deep ? i + extra : i);
  for (let i = 0; i < segments.length; i++) {
    const matcher = segments[i];
    if (matcher.kind === "literal" && parts[at(i)] !== matcher.text) return undefined;
    if (matcher.kind === "*" && parts[at(i)] === "") return undefined;
  }
  const bindings: PathBindings = new Map();
  for (const variable of template.variables) {
    const start = at(variable.start);
    const end = deep >= 0 && variable.end > deep ? variable.end + extra : variable.end;
    const decoded: string[] = [];
    for (const part of parts.slice(start, end)) {
      try {
        decoded.push(decodeURIComponent(part));
      } catch {
        return { error: variable.fieldPath.join(".") };
      }
    }
    bindings.set(variable.fieldPath.join("."), decoded.join("/"));
  }
  return { value: bindings };
}
