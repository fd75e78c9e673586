import type { Code } from "@connectrpc/connect";

/** One field that failed validation (google.rpc.BadRequest.FieldViolation). */
export interface FieldViolation {
  field: string;
  description: string;
}

/** One unmet precondition (google.rpc.PreconditionFailure.Violation). */
export interface PreconditionViolation {
  type: string;
  subject?: string;
  description: string;
}

/** The resource a NOT_FOUND error is about (google.rpc.ResourceInfo). */
export interface ResourceInfo {
  resourceType: string;
  resourceName: string;
  description?: string;
}

/** Everything a door needs to render an error in its own format. */
export interface LadingErrorOptions {
  code: Code;
  message: string;
  /** ErrorInfo.reason: a stable UPPER_SNAKE identifier. */
  reason: string;
  /** ErrorInfo.domain: `<domain>.lading.dev`. */
  domain: string;
  fieldViolations?: FieldViolation[];
  preconditionViolations?: PreconditionViolation[];
  resourceInfo?: ResourceInfo;
  /** OCI distribution error code, for the registry door. */
  ociCode?: string;
}

/**
 * The one error type domain code throws. Each door renders it exactly once: REST as a
 * google.rpc.Status JSON body, gRPC as status plus typed details, OCI as `{errors: [...]}`.
 */
export class LadingError extends Error {
  readonly code: Code;
  readonly reason: string;
  readonly domain: string;
  readonly fieldViolations: FieldViolation[];
  readonly preconditionViolations: PreconditionViolation[];
  readonly resourceInfo: ResourceInfo | undefined;
  readonly ociCode: string | undefined;

  constructor(options: LadingErrorOptions) {
    super(options.message);
    this.name = "LadingError";
    this.code = options.code;
    this.reason = options.reason;
    this.domain = options.domain;
    this.fieldViolations = options.fieldViolations ?? [];
    this.preconditionViolations = options.preconditionViolations ?? [];
    this.resourceInfo = options.resourceInfo;
    this.ociCode = options.ociCode;
  }
}
