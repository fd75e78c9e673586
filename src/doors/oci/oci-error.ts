import { Code } from "@connectrpc/connect";
import { asLadingError, LadingError } from "../../errors/index.ts";
import type { HttpResponse } from "../../rpc/index.ts";
import { httpStatusForCode } from "../rest/index.ts";

/** An OCI distribution error code (distribution-spec §"Error Codes", plus `UNKNOWN`). */
export type OciCode =
  | "BLOB_UNKNOWN"
  | "BLOB_UPLOAD_INVALID"
  | "BLOB_UPLOAD_UNKNOWN"
  | "DIGEST_INVALID"
  | "MANIFEST_BLOB_UNKNOWN"
  | "MANIFEST_INVALID"
  | "MANIFEST_UNKNOWN"
  | "NAME_INVALID"
  | "NAME_UNKNOWN"
  | "SIZE_INVALID"
  | "UNAUTHORIZED"
  | "DENIED"
  | "UNSUPPORTED"
  | "TOOMANYREQUESTS"
  | "RANGE_INVALID"
  | "PAGINATION_NUMBER_INVALID"
  | "UNKNOWN";

/** An error the OCI door answers with `{"errors":[{code,message,detail}]}`. */
export class OciError extends Error {
  readonly status: number;
  readonly ociCode: OciCode;
  readonly detail: unknown;
  /** Extra response headers (`WWW-Authenticate`, `Content-Range`, …). */
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    ociCode: OciCode,
    message: string,
    options: { detail?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "OciError";
    this.status = status;
    this.ociCode = ociCode;
    this.detail = options.detail;
    this.headers = options.headers ?? {};
  }
}

/** Shorthand for `new OciError(...)`. */
export function ociError(
  status: number,
  code: OciCode,
  message: string,
  detail?: unknown,
): OciError {
  return new OciError(status, code, message, { detail });
}

/**
 * Turns anything thrown into an OciError: UNAUTHENTICATED → 401 UNAUTHORIZED, PERMISSION_DENIED
 * → 403 DENIED, other LadingErrors by their status and `ociCode`; anything else is logged and
 * becomes 500 UNKNOWN naming the request id.
 */
export function toOciError(
  err: unknown,
  requestId: string,
  log: { error(fields: object, message: string): void },
): OciError {
  if (err instanceof OciError) return err;
  const lading = err instanceof LadingError ? err : asLadingError(err, requestId, log);
  if (lading.code === Code.Unauthenticated) return ociError(401, "UNAUTHORIZED", lading.message);
  if (lading.code === Code.PermissionDenied) return ociError(403, "DENIED", lading.message);
  const status = httpStatusForCode(lading.code);
  const code = (lading.ociCode as OciCode | undefined) ?? (status >= 500 ? "UNKNOWN" : "DENIED");
  return ociError(status, code, lading.message, { reason: lading.reason });
}

/** Writes an OCI error body (nothing after headers for HEAD). */
export function sendOciError(res: HttpResponse, err: OciError, head = false): void {
  if (res.headersSent) {
    res.destroy?.();
    return;
  }
  const entry: Record<string, unknown> = { code: err.ociCode, message: err.message };
  if (err.detail !== undefined) entry.detail = err.detail;
  const body = JSON.stringify({ errors: [entry] });
  res.statusCode = err.status;
  for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
  res.setHeader("content-type", "application/json");
  res.setHeader("content-length", Buffer.byteLength(body));
  if (head) res.end();
  else res.end(body);
}
