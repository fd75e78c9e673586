import type { OutboundGuard } from "../outbound/index.ts";

/** Longest sink URL accepted. */
export const maxSinkLength = 2048;

/**
 * Why `sink` cannot receive events, or undefined when it can: an absolute https URL without
 * credentials or fragment (plain http only to a loopback host, since anything else would send
 * signed events in clear text), whose destination the outbound guard does not refuse outright.
 * A name that resolves to an internal address is refused at each delivery instead.
 */
export function sinkProblem(
  sink: string,
  outbound: Pick<OutboundGuard, "destinationProblem">,
): string | undefined {
  if (sink === "") return "is required";
  if (sink.length > maxSinkLength) return `must be at most ${maxSinkLength} characters`;
  if (!URL.canParse(sink)) return "must be an absolute https URL";
  const url = new URL(sink);
  if (url.username !== "" || url.password !== "") return "must not contain credentials";
  if (url.hash !== "") return "must not contain a fragment";
  return outbound.destinationProblem(url);
}
