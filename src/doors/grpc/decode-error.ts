import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { invalidArgument } from "../../errors/index.ts";
import { errorDetails } from "../../rpc/index.ts";

/**
 * The errors connect-es (2.1) raises while turning request bytes into a message, before any
 * interceptor or handler runs. The first three it reports as INTERNAL, though each is the
 * client's doing: a body that is not the method's binary message, an envelope whose compressed
 * data does not decompress, a compressed envelope without an encoding. JSON it already reports
 * as INVALID_ARGUMENT, but without Lading's error details.
 */
const undecodable: [Code, RegExp, string][] = [
  [Code.Internal, /^parse binary: (.*)$/s, "binary"],
  [Code.Internal, /^(decompression failed)$/, "binary"],
  [Code.Internal, /^(received compressed envelope, but do not know how to decompress)$/, "binary"],
  [Code.InvalidArgument, /^cannot decode (?:message|field|enum) \S+ from JSON: (.*)$/s, "JSON"],
];

/**
 * The INVALID_ARGUMENT to send instead of `error` when `error` is connect-es failing to decode
 * the request of `method`; undefined for any other error. It reads like a REST body violation:
 * `Invalid argument: body: must be a binary lading.iam.v2.ListGroupsRequest message (…)`, with
 * the ErrorInfo and BadRequest details every Lading error carries.
 */
export function clientDecodeError(
  error: ConnectError,
  method: DescMethod,
): ConnectError | undefined {
  for (const [code, pattern, format] of undecodable) {
    const found = error.code === code ? pattern.exec(error.rawMessage) : null;
    if (!found) continue;
    const lading = invalidArgument(domainOf(method.parent.typeName), [
      {
        field: "body",
        description: `must be a ${format} ${method.input.typeName} message (${found[1]})`,
      },
    ]);
    return new ConnectError(lading.message, lading.code, undefined, errorDetails(lading));
  }
  return undefined;
}

/** `iam` for `lading.iam.v2.GroupsService`, as the REST door names the domain; `api` otherwise. */
function domainOf(serviceTypeName: string): string {
  const [root, domain] = serviceTypeName.split(".");
  return root === "lading" && domain ? domain : "api";
}
