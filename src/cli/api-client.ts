import type { CliContext } from "./cli-context.ts";

/** A JSON object as the API sends it. */
export type Json = Record<string, unknown>;

/** Query parameters; undefined and empty values are left out, arrays repeat the key. */
export type Query = Record<string, string | number | string[] | undefined>;

/** A failed API or registry call, already rendered for the terminal. */
export class CliError extends Error {
  /** The lines printed to stderr (the first starts with "lading: "). */
  readonly lines: string[];
  constructor(lines: string[]) {
    super(lines.join("\n"));
    this.lines = lines;
  }
}

/** A small JSON client of the Lading REST API. */
export interface ApiClient {
  get(path: string, query?: Query): Promise<Json>;
  post(path: string, body: unknown): Promise<Json>;
  patch(path: string, body: unknown, updateMask: string[]): Promise<Json>;
  delete(path: string): Promise<Json>;
}

/** `uid` as a URL path (slashes kept, every segment escaped). */
export function uidPath(uid: string): string {
  return uid.split("/").map(encodeURIComponent).join("/");
}

/** Encodes `query`. */
export function queryString(query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (Array.isArray(value)) for (const v of value) params.append(key, v);
    else if (value !== undefined && value !== "") params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

interface Violation {
  field?: string;
  description?: string;
  type?: string;
  subject?: string;
}

/** Renders an API error body: the message, then one line per field and precondition violation. */
export function renderApiError(status: number, body: unknown): string[] {
  const error = (body ?? {}) as { message?: string; details?: Record<string, unknown>[] };
  const fields: Violation[] = [];
  const preconditions: Violation[] = [];
  for (const detail of error.details ?? []) {
    const type = String(detail["@type"] ?? "");
    if (type.endsWith("google.rpc.BadRequest"))
      fields.push(...((detail.fieldViolations as Violation[]) ?? []));
    if (type.endsWith("google.rpc.PreconditionFailure"))
      preconditions.push(...((detail.violations as Violation[]) ?? []));
  }
  let message = error.message || `HTTP ${status}`;
  if (fields.length > 0 && message.startsWith("Invalid argument: ")) message = "Invalid argument";
  return [
    `lading: ${message}`,
    ...fields.map((v) => `  ${v.field ?? ""}: ${v.description ?? ""}`),
    ...preconditions.map(
      (v) => `  ${[v.type, v.subject].filter(Boolean).join(" ")}: ${v.description ?? ""}`,
    ),
  ];
}

/** Sends a request, turning connection failures into a readable CliError. */
export async function send(url: string, init: RequestInit, what: string): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason =
      cause?.code === "ECONNREFUSED"
        ? "connection refused"
        : (cause?.code ?? cause?.message ?? (error as Error).message);
    const base = new URL(url).origin;
    throw new CliError([
      `lading: cannot reach the ${what} at ${base}: ${reason}`,
      `  (check --${what === "registry" ? "registry" : "api"}, LADING_${what === "registry" ? "REGISTRY" : "API"}_URL or \`lading config\`)`,
    ]);
  }
}

/** Parses a JSON answer; a non-2xx answer becomes a rendered CliError. */
export async function readJson(res: Response): Promise<Json> {
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = { message: text.trim().slice(0, 200) || res.statusText };
  }
  if (!res.ok) throw new CliError(renderApiError(res.status, body));
  return (body ?? {}) as Json;
}

/**
 * A client of the API at ctx.apiUrl with a bearer token for the API audience; `anonymous`
 * sends none, for the methods that need no credentials (no sign-in is asked for).
 */
export function createApiClient(ctx: CliContext, options: { anonymous?: boolean } = {}): ApiClient {
  let token: Promise<string> | undefined;
  const request = async (method: string, path: string, body?: unknown): Promise<Json> => {
    const headers: Record<string, string> = {};
    if (!options.anonymous) {
      token ??= ctx.token();
      headers.authorization = `Bearer ${await token}`;
    }
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await send(
      `${ctx.apiUrl}${path}`,
      { method, headers, body: body === undefined ? undefined : JSON.stringify(body) },
      "API",
    );
    return readJson(res);
  };
  return {
    get: (path, query) => request("GET", `${path}${queryString(query)}`),
    post: (path, body) => request("POST", path, body),
    patch: (path, body, mask) =>
      request("PATCH", `${path}${queryString({ updateMask: mask.join(",") })}`, body),
    delete: (path) => request("DELETE", path),
  };
}
