/** The Simple API's formats (PEP 503 HTML, PEP 691 JSON), their rendering and negotiation. */

/** The API version served: PEP 700 (sizes, upload times, the versions list). */
export const apiVersion = "1.1";

export const simpleJson = "application/vnd.pypi.simple.v1+json";
export const simpleHtml = "application/vnd.pypi.simple.v1+html";
export const plainHtml = "text/html";

type SimpleType = typeof simpleJson | typeof simpleHtml | typeof plainHtml;

/** Ties go to HTML: old clients and browsers send `*\/*` or nothing and expect HTML. */
const preference: readonly SimpleType[] = [plainHtml, simpleHtml, simpleJson];

/**
 * The Content-Type to answer an `Accept` header with (PEP 691: the client's q-values, the most
 * specific match of each type deciding), or undefined when none is acceptable (406).
 */
export function negotiateSimple(accept: string | undefined): SimpleType | undefined {
  if (!accept?.trim()) return plainHtml;
  const ranges = accept
    .split(",", 64)
    .map((item) => {
      const [range = "", ...params] = item.split(";");
      let q = 1;
      for (const param of params) {
        const [key, value] = param.split("=");
        if (key?.trim().toLowerCase() === "q") q = Number(value);
      }
      const type = range.trim().toLowerCase().replace(".latest+", ".v1+");
      return { type, q: Number.isFinite(q) ? q : 0 };
    })
    .filter((r) => r.type !== "");
  let best: { type: SimpleType; q: number; specificity: number } | undefined;
  for (const type of preference) {
    let match: { q: number; specificity: number } | undefined;
    for (const r of ranges) {
      const specificity =
        r.type === type ? 2 : r.type === `${type.split("/")[0]}/*` ? 1 : r.type === "*/*" ? 0 : -1;
      if (specificity >= 0 && (!match || specificity > match.specificity)) {
        match = { q: r.q, specificity };
      }
    }
    if (!match || match.q <= 0) continue;
    if (!best || match.q > best.q || (match.q === best.q && match.specificity > best.specificity)) {
      best = { type, ...match };
    }
  }
  return best?.type;
}

/** One file of a project page. */
export interface SimpleFile {
  filename: string;
  /** Relative to the project page. */
  url: string;
  sha256: string;
  size: number;
  requiresPython?: string;
  uploadTime: string;
}

/** A project page's content. */
export interface SimplePage {
  /** PEP 503-normalised: the JSON `name` (PEP 691). */
  project: string;
  /** As first published: the HTML title. */
  name: string;
  files: SimpleFile[];
  versions: string[];
}

const entities: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for an HTML attribute or element. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => entities[c] ?? c);
}

const head = (title: string) =>
  `<!DOCTYPE html>\n<html>\n<head>\n<meta name="pypi:repository-version" content="${apiVersion}">\n<title>${escapeHtml(title)}</title>\n</head>\n<body>\n`;

/** The project page in PEP 503 HTML. */
export function projectHtml(page: SimplePage): string {
  const links = page.files.map((f) => {
    const requires =
      f.requiresPython === undefined
        ? ""
        : ` data-requires-python="${escapeHtml(f.requiresPython)}"`;
    return `<a href="${escapeHtml(`${f.url}#sha256=${f.sha256}`)}"${requires}>${escapeHtml(f.filename)}</a><br>\n`;
  });
  return `${head(`Links for ${page.name}`)}<h1>Links for ${escapeHtml(page.name)}</h1>\n${links.join("")}</body>\n</html>\n`;
}

/** The project page in PEP 691 JSON (with the PEP 700 fields). */
export function projectJson(page: SimplePage): string {
  return JSON.stringify({
    meta: { "api-version": apiVersion },
    name: page.project,
    versions: page.versions,
    files: page.files.map((f) => ({
      filename: f.filename,
      url: f.url,
      hashes: { sha256: f.sha256 },
      ...(f.requiresPython === undefined ? {} : { "requires-python": f.requiresPython }),
      size: f.size,
      "upload-time": f.uploadTime,
      yanked: false,
    })),
  });
}

/** The project list in PEP 503 HTML: `projects` are [normalised name, display name]. */
export function indexHtml(projects: readonly [string, string][]): string {
  const links = projects.map(
    ([name, display]) =>
      `<a href="${escapeHtml(encodeURIComponent(name))}/">${escapeHtml(display)}</a><br>\n`,
  );
  return `${head("Simple index")}${links.join("")}</body>\n</html>\n`;
}

/** The project list in PEP 691 JSON. */
export function indexJson(projects: readonly [string, string][]): string {
  return JSON.stringify({
    meta: { "api-version": apiVersion },
    projects: projects.map(([, display]) => ({ name: display })),
  });
}
