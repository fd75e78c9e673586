import fc from "fast-check";
import type { H2Answer, H2Request } from "./h2-client.ts";
import type { RawAnswer, RawRequest } from "./raw-http.ts";

const textDecoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Bytes as a JavaScript expression that rebuilds them, short enough to read in a report: text
 * as string literals with long runs of a short unit as `.repeat(n)`; bytes that are not UTF-8
 * as Latin-1 text when they are mostly ASCII, else as hex.
 */
export function showBytes(bytes: Buffer | string, max = 600): string {
  const buffer = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes;
  let text: string;
  try {
    text = textDecoder.decode(buffer);
  } catch {
    const printable = buffer.filter((b) => b >= 0x20 && b < 0x7f).length;
    if (printable >= buffer.length * 0.8) {
      return `Buffer.from(${showBytes(buffer.toString("latin1"), max)}, "latin1")`;
    }
    const hex = buffer.subarray(0, max / 2).toString("hex");
    const more = buffer.length > max / 2 ? ` /* first ${max / 2} of ${buffer.length} bytes */` : "";
    return `Buffer.from("${hex}", "hex")${more}`;
  }
  const parts: string[] = [];
  const runs = /(.{1,8}?)\1{7,}/gsu;
  let at = 0;
  for (const m of text.matchAll(runs)) {
    if (m.index > at) parts.push(JSON.stringify(text.slice(at, m.index)));
    parts.push(`${JSON.stringify(m[1])}.repeat(${m[0].length / m[1].length})`);
    at = m.index + m[0].length;
  }
  if (at < text.length || parts.length === 0) parts.push(JSON.stringify(text.slice(at)));
  const shown = parts.join(" + ");
  return shown.length <= max
    ? shown
    : `${shown.slice(0, max)}… /* ${buffer.length} bytes in all */`;
}

/** A request as it went on the wire (headers as sent, body as an expression). */
export function showRequest(r: RawRequest): string {
  const lines = [`${r.method} ${showTarget(r.target)} HTTP/1.1`];
  for (const [name, value] of r.headers ?? []) lines.push(`${name}: ${shorten(value)}`);
  if (typeof r.contentLength === "number")
    lines.push(`(declared content-length ${r.contentLength})`);
  if (r.contentLength === "omit") lines.push("(no content-length)");
  if (r.body && r.body.length > 0) lines.push(`body: ${showBytes(r.body)}`);
  return lines.join("\n  ");
}

/** An HTTP/2 request. */
export function showH2Request(r: H2Request): string {
  const lines = [`POST ${r.path} (HTTP/2)`];
  for (const [name, value] of Object.entries(r.headers)) lines.push(`${name}: ${shorten(value)}`);
  lines.push(`body: ${showBytes(r.body)}`);
  return lines.join("\n  ");
}

/** An answer: status, the headers that matter for diagnosis, the body. */
export function showAnswer(a: RawAnswer | H2Answer): string {
  const lines = [`${a.status} in ${Math.round(a.ms)} ms`];
  for (const [name, value] of Object.entries(a.headers)) {
    if (/^(content-type|grpc-|x-request-id|location|www-authenticate)/.test(name)) {
      lines.push(`${name}: ${shorten(value)}`);
    }
  }
  if ("trailers" in a) {
    for (const [name, value] of Object.entries(a.trailers)) lines.push(`trailer ${name}: ${value}`);
  }
  if (a.body.length > 0) lines.push(`body: ${showBytes(a.body, 400)}`);
  return lines.join("\n  ");
}

/** Makes fast-check (and the health probe) print `value` through `show`. */
export function printable<T extends object>(value: T, show: (value: T) => string): T {
  Object.defineProperty(value, fc.toStringMethod, { value: () => show(value), enumerable: false });
  return value;
}

function showTarget(target: string): string {
  return /^[\x21-\x7e]*$/.test(target) && target.length <= 400 ? target : showBytes(target, 400);
}

function shorten(value: string): string {
  return value.length <= 200 ? value : `${value.slice(0, 200)}… (${value.length} chars)`;
}
