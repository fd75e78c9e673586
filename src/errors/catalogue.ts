import { Code } from "@connectrpc/connect";
import { type FieldViolation, LadingError, type PreconditionViolation } from "./lading-error.ts";

/** The error domain of a Lading API domain, e.g. `iam.lading.dev`. */
export function errorDomain(domain: string): string {
  return `${domain}.lading.dev`;
}

/**
 * INVALID_ARGUMENT with one BadRequest violation per failing field. The message has the spec's
 * form `Invalid argument: <field>: <description>`, further violations joined with "; ".
 */
export function invalidArgument(domain: string, violations: FieldViolation[]): LadingError {
  const text = violations.map((v) => `${v.field}: ${v.description}`).join("; ");
  return new LadingError({
    code: Code.InvalidArgument,
    message: `Invalid argument: ${text}`,
    reason: "INVALID_ARGUMENT",
    domain: errorDomain(domain),
    fieldViolations: violations,
  });
}

/** FAILED_PRECONDITION with the spec's message form `Precondition failed: <description>`. */
export function failedPrecondition(
  domain: string,
  description: string,
  violations: PreconditionViolation[],
): LadingError {
  return new LadingError({
    code: Code.FailedPrecondition,
    message: `Precondition failed: ${description}`,
    reason: "FAILED_PRECONDITION",
    domain: errorDomain(domain),
    preconditionViolations: violations,
  });
}

/** NOT_FOUND carrying ResourceInfo. Also what a caller gets for what it may not see. */
export function notFound(domain: string, resourceType: string, resourceName: string): LadingError {
  return new LadingError({
    code: Code.NotFound,
    message: `Not found: ${resourceType} ${resourceName}`,
    reason: "NOT_FOUND",
    domain: errorDomain(domain),
    resourceInfo: { resourceType, resourceName, description: `${resourceType} not found` },
  });
}

/** PERMISSION_DENIED: the caller sees the resource but lacks `capability` on it. */
export function permissionDenied(domain: string, description: string): LadingError {
  return new LadingError({
    code: Code.PermissionDenied,
    message: `Permission denied: ${description}`,
    reason: "PERMISSION_DENIED",
    domain: errorDomain(domain),
  });
}

/** UNAUTHENTICATED: no usable credentials. `reason` says which check failed. */
export function unauthenticated(reason: string, description: string): LadingError {
  return new LadingError({
    code: Code.Unauthenticated,
    message: `Unauthenticated: ${description}`,
    reason,
    domain: errorDomain("auth"),
  });
}

/** ALREADY_EXISTS, e.g. a second binding of the same role to the same identity on a group. */
export function alreadyExists(domain: string, description: string): LadingError {
  return new LadingError({
    code: Code.AlreadyExists,
    message: `Already exists: ${description}`,
    reason: "ALREADY_EXISTS",
    domain: errorDomain(domain),
  });
}

/** INTERNAL: something failed that the caller cannot fix; details stay in the server log. */
export function internal(requestId: string): LadingError {
  return new LadingError({
    code: Code.Internal,
    message: `Internal error (request id ${requestId})`,
    reason: "INTERNAL",
    domain: errorDomain("api"),
  });
}

/**
 * The error to send for anything a handler threw: a LadingError as it is; anything else is
 * logged with the request id (never sent) and becomes INTERNAL.
 */
export function asLadingError(
  err: unknown,
  requestId: string,
  log: { error(fields: object, message: string): void },
): LadingError {
  if (err instanceof LadingError) return err;
  log.error({ err, requestId }, "request failed");
  return internal(requestId);
}
