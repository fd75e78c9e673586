/**
 * How skopeo and podman (containers/image, docker/distribution's error parser) turn a registry's
 * 4xx answer into the error they print, re-stated here so tests can check what a user sees
 * without the tools: the `WWW-Authenticate` challenge's `error` and `error_description` first,
 * then the body as `{"errors":[{code, message, detail}]}`. A body that does not parse becomes
 * `error parsing HTTP 401 response body: …`, the message users of a registry with empty
 * refusal bodies get.
 */

/** The error codes docker/distribution registers; any other code parses as UNKNOWN. */
const knownCodes = new Set([
  "UNKNOWN",
  "UNSUPPORTED",
  "UNAUTHORIZED",
  "DENIED",
  "UNAVAILABLE",
  "TOOMANYREQUESTS",
  "DIGEST_INVALID",
  "SIZE_INVALID",
  "NAME_INVALID",
  "TAG_INVALID",
  "NAME_UNKNOWN",
  "MANIFEST_UNKNOWN",
  "MANIFEST_INVALID",
  "MANIFEST_UNVERIFIED",
  "MANIFEST_BLOB_UNKNOWN",
  "BLOB_UNKNOWN",
  "BLOB_UPLOAD_UNKNOWN",
  "BLOB_UPLOAD_INVALID",
  "RANGE_INVALID",
  "PAGINATION_NUMBER_INVALID",
]);

const defaultMessages: Record<string, string> = {
  UNAUTHORIZED: "authentication required",
  DENIED: "requested access to the resource is denied",
};

/** One parsed error, or the parse failure containers/image reports instead. */
export interface ParsedError {
  code: string;
  message: string;
  /** Set when the body did not parse: the text a user then sees. */
  parseFailure?: string;
}

/** The parameters of the Bearer challenges of a `WWW-Authenticate` header. */
export function bearerChallenges(header: string | null): Record<string, string>[] {
  if (!header) return [];
  const out: Record<string, string>[] = [];
  for (const match of header.matchAll(/Bearer\s+((?:[a-z_]+="[^"]*",?\s*)+)/gi)) {
    const params: Record<string, string> = {};
    for (const [, name, value] of match[1].matchAll(/([a-z_]+)="([^"]*)"/gi)) {
      params[name.toLowerCase()] = value;
    }
    out.push(params);
  }
  return out;
}

/** The body as docker/distribution's parseHTTPErrorResponse reads it. */
export function parseErrorBody(status: number, body: string): ParsedError[] {
  const failure = (reason: string): ParsedError[] => [
    {
      code: "",
      message: "",
      parseFailure: `error parsing HTTP ${status} response body: ${reason}: ${JSON.stringify(body)}`,
    },
  ];
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return failure(body === "" ? "unexpected end of JSON input" : "invalid character");
  }
  const object = typeof json === "object" && json !== null ? (json as Record<string, unknown>) : {};
  if (typeof object.details === "string" && object.details !== "") {
    return [{ code: status === 401 ? "UNAUTHORIZED" : "UNKNOWN", message: object.details }];
  }
  const errors = Array.isArray(object.errors) ? object.errors : [];
  if (errors.length === 0) return failure("no error details found in HTTP response body");
  return errors.map((e: Record<string, unknown>) => {
    const code = typeof e.code === "string" && knownCodes.has(e.code) ? e.code : "UNKNOWN";
    return { code, message: typeof e.message === "string" ? e.message : "" };
  });
}

/**
 * The error skopeo or podman prints for a 4xx answer (handleErrorResponse, then
 * registryHTTPResponseToError, which keeps the first error), and every error it parsed.
 */
export function clientError(
  status: number,
  wwwAuthenticate: string | null,
  body: string,
): { shown: string; all: ParsedError[] } {
  let all: ParsedError[] | undefined;
  for (const params of bearerChallenges(wwwAuthenticate)) {
    const code =
      params.error === "invalid_token"
        ? "UNAUTHORIZED"
        : params.error === "insufficient_scope"
          ? "DENIED"
          : undefined;
    if (!code) continue;
    const message = params.error_description || defaultMessages[code];
    all = [{ code, message }, ...parseErrorBody(status, body)];
    break;
  }
  if (!all) {
    all = parseErrorBody(status, body);
    if (all[0].parseFailure && status === 401) {
      all = [{ code: "UNAUTHORIZED", message: defaultMessages.UNAUTHORIZED }];
    }
  }
  const first = all[0];
  const shown = first.parseFailure ?? first.message;
  return { shown, all };
}
