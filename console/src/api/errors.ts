import { ConnectError } from "@connectrpc/connect";
import { BadRequestSchema, PreconditionFailureSchema } from "@gen/google/rpc/error_details_pb.js";

/** An API error as the console shows it: the API's own message and its field violations. */
export interface ShownError {
  message: string;
  /** description per field (snake_case as the API names it). */
  fields: Record<string, string>;
  code?: string;
}

const codeWords: Record<number, string> = {
  3: "Invalid input",
  5: "Not found",
  6: "Already exists",
  7: "Not allowed",
  9: "Precondition failed",
  16: "Not signed in",
  14: "The server is unavailable",
};

/** What went wrong, in words: the API's message and the fields it names. */
export function describeError(error: unknown): ShownError {
  if (error instanceof ConnectError) {
    const fields: Record<string, string> = {};
    for (const bad of error.findDetails(BadRequestSchema)) {
      for (const v of bad.fieldViolations) fields[v.field] = v.description;
    }
    const preconditions = error
      .findDetails(PreconditionFailureSchema)
      .flatMap((p) => p.violations.map((v) => v.description));
    const message = [
      error.rawMessage || codeWords[error.code] || "The request failed",
      ...preconditions,
    ]
      .filter(Boolean)
      .join(" — ");
    return { message, fields, code: codeWords[error.code] };
  }
  if (error instanceof Error) return { message: error.message, fields: {} };
  return { message: String(error), fields: {} };
}
