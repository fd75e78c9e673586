import { isIP } from "node:net";

/** Longest sink URL accepted. */
export const maxSinkLength = 2048;

/**
 * Why `sink` cannot receive events, or undefined when it can: an absolute https URL without
 * credentials or fragment; plain http only to a loopback host and only when the server allows
 * it (development and tests), since anything else would send signed events in clear text.
 */
export function sinkProblem(sink: string, allowHttpLoopback: boolean): string | undefined {
  if (sink === "") return "is required";
  if (sink.length > maxSinkLength) return `must be at most ${maxSinkLength} characters`;
  if (!URL.canParse(sink)) return "must be an absolute https URL";
  const url = new URL(sink);
  if (url.username !== "" || url.password !== "") return "must not contain credentials";
  if (url.hash !== "") return "must not contain a fragment";
  if (url.protocol === "https:") return undefined;
  if (url.protocol !== "http:") return "must be an https URL";
  if (!isLoopback(url.hostname)) return "must be an https URL (http only to a loopback host)";
  if (!allowHttpLoopback) {
    return "must be an https URL (http to loopback needs --events-allow-http-loopback)";
  }
  return undefined;
}

/** localhost, 127.0.0.0/8 or ::1, as URL.hostname spells them. */
export function isLoopback(hostname: string): boolean {
  if (hostname === "localhost") return true;
  const host = hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) === 4) return host.startsWith("127.");
  if (isIP(host) === 6) return host === "::1";
  return false;
}
