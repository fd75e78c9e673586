import { create, type DescMessage, type Message } from "@bufbuild/protobuf";
import type { LadingError } from "../errors/index.ts";
import {
  BadRequestSchema,
  ErrorInfoSchema,
  PreconditionFailureSchema,
  ResourceInfoSchema,
} from "../gen/google/rpc/error_details_pb.js";

/** One typed detail of an error, as the doors send it (google.protobuf.Any or grpc details). */
export interface ErrorDetail {
  desc: DescMessage;
  value: Message;
}

/** The google.rpc detail types a LadingError can carry, for registries that decode them. */
export const errorDetailSchemas: readonly DescMessage[] = [
  ErrorInfoSchema,
  BadRequestSchema,
  PreconditionFailureSchema,
  ResourceInfoSchema,
];

/**
 * The typed details of an error in the order every door sends them: ErrorInfo, then BadRequest
 * when there are field violations, PreconditionFailure when there are violations, ResourceInfo
 * when set (DESIGN §2, AIP-193).
 */
export function errorDetails(err: LadingError): ErrorDetail[] {
  const details: ErrorDetail[] = [
    {
      desc: ErrorInfoSchema,
      value: create(ErrorInfoSchema, { reason: err.reason, domain: err.domain }),
    },
  ];
  if (err.fieldViolations.length > 0) {
    const fieldViolations = err.fieldViolations.map((v) => ({
      field: v.field,
      description: v.description,
    }));
    details.push({ desc: BadRequestSchema, value: create(BadRequestSchema, { fieldViolations }) });
  }
  if (err.preconditionViolations.length > 0) {
    const violations = err.preconditionViolations.map((v) => ({
      type: v.type,
      subject: v.subject ?? "",
      description: v.description,
    }));
    details.push({
      desc: PreconditionFailureSchema,
      value: create(PreconditionFailureSchema, { violations }),
    });
  }
  if (err.resourceInfo) {
    const info = err.resourceInfo;
    details.push({
      desc: ResourceInfoSchema,
      value: create(ResourceInfoSchema, {
        resourceType: info.resourceType,
        resourceName: info.resourceName,
        description: info.description ?? "",
      }),
    });
  }
  return details;
}
