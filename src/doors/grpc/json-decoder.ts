/**
 * A JSON escape: a surrogate pair, a lone high or low surrogate, or any other escaped
 * character (consumed so that `\\ud800`, an escaped backslash and text, is not taken for one).
 */
const jsonEscape =
  /\\(?:u[dD][89abAB][0-9a-fA-F]{2}(?:\\u[dD][c-fC-F][0-9a-fA-F]{2})?|u[dD][c-fC-F][0-9a-fA-F]{2}|[^u])/g;

/**
 * `json` with every escaped lone surrogate (`"\ud800"`) replaced by `\ufffd`, as invalid UTF-8
 * in a binary message becomes U+FFFD. A lone surrogate is no Unicode text: protobuf strings
 * cannot hold it, and the gRPC status of an error that echoes one cannot be written (the
 * percent-encoding of `grpc-message` throws), which cut the answer off.
 */
export function wellFormedJson(json: string): string {
  if (!json.includes("\\u")) return json;
  return json.replace(jsonEscape, (found) =>
    found.length === 6 && found[1] === "u" ? "\\ufffd" : found,
  );
}

/** The TextDecoder the RPC library reads JSON requests with: {@link wellFormedJson} text. */
export class WellFormedJsonDecoder extends TextDecoder {
  override decode(...args: Parameters<InstanceType<typeof TextDecoder>["decode"]>): string {
    return wellFormedJson(super.decode(...args));
  }
}
