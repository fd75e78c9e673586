/** An HTTP request as a receiver saw it. */
export interface HttpRequestText {
  method: string;
  target: string;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
}

/** Largest request text read: events are small JSON documents. */
export const maxRequestTextBytes = 16 * 1024 * 1024;

/**
 * Parses an HTTP/1.1 request in its text form (request line, headers, blank line, body), with
 * CRLF or bare LF line ends. A Content-Length shorter than the body cuts it; a longer one is
 * an error. Chunked bodies are refused: save the decoded body instead.
 */
export function parseHttpRequestText(
  text: Buffer,
): { value: HttpRequestText; error?: undefined } | { value?: undefined; error: string } {
  if (text.length > maxRequestTextBytes) return { error: "the request is larger than 16 MiB" };
  const crlf = text.indexOf("\r\n\r\n");
  const lf = text.indexOf("\n\n");
  const [end, gap] = crlf >= 0 && (lf < 0 || crlf < lf) ? [crlf, 4] : lf >= 0 ? [lf, 2] : [-1, 0];
  if (end < 0) return { error: "no blank line ends the headers" };
  const lines = text.subarray(0, end).toString("latin1").split(/\r?\n/);
  const request = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(lines[0] ?? "");
  if (!request) return { error: `not an HTTP/1.1 request line: "${lines[0]?.slice(0, 80)}"` };
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon <= 0) return { error: `not a header line: "${line.slice(0, 80)}"` };
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  if (/chunked/i.test(headers["transfer-encoding"] ?? "")) {
    return { error: "chunked bodies are not supported: save the decoded body" };
  }
  let body = text.subarray(end + gap);
  const length = headers["content-length"];
  if (length !== undefined) {
    if (!/^\d{1,10}$/.test(length)) return { error: `bad Content-Length "${length}"` };
    if (Number(length) > body.length) {
      return { error: `Content-Length is ${length} but the body has ${body.length} bytes` };
    }
    body = body.subarray(0, Number(length));
  }
  return { value: { method: request[1], target: request[2], headers, body: Buffer.from(body) } };
}
