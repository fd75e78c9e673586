import { termsError } from "../../registry/index.ts";
import { statusJson } from "../rest/index.ts";
import type { OciContext } from "./oci-context.ts";
import { ociError } from "./oci-error.ts";

/**
 * Refuses a pull from a repo of group `groupUid` while a required terms document is not
 * accepted there or on an ancestor: 403 DENIED `Precondition failed: terms not accepted: <ids>`
 * whose detail is the google.rpc.Status the API would send (code 9, ErrorInfo reason
 * FAILED_PRECONDITION, PreconditionFailure with one TERMS_NOT_ACCEPTED violation per document).
 */
export async function requireTerms(ctx: OciContext, groupUid: string): Promise<void> {
  const missing = (await ctx.termsGate?.missing(groupUid)) ?? [];
  if (missing.length === 0) return;
  const err = termsError("registry", missing);
  throw ociError(403, "DENIED", err.message, JSON.parse(statusJson(err)));
}
