import type { RegistryClient } from "../../events/index.ts";
import type { RepoPath } from "../../registry/registry-access.ts";
import type { OciRequest } from "./oci-context.ts";
import type { RegistryCaller } from "./registry-auth.ts";

/** Who made a registry request, for its events: anonymous callers have no subject. */
export function clientOf(caller: RegistryCaller, r: OciRequest): RegistryClient {
  const agent = r.req.headers["user-agent"];
  return {
    actor: { subject: caller.anonymous ? "" : caller.subject },
    remoteAddress: r.req.socket?.remoteAddress ?? "",
    userAgent: typeof agent === "string" ? agent : "",
  };
}

/**
 * An outsider, as the events of the organisation it pulled from name it: no identity (so no
 * Ce-Actor, and no organisation uid inside one), no address, no user agent.
 */
export const outsideClient: RegistryClient = Object.freeze({
  actor: Object.freeze({ subject: "" }),
  remoteAddress: "",
  userAgent: "",
});

/**
 * Who pulled from `target`, for the pull event its organisation receives. A caller that pulls
 * only as anyone may (the public organisation's free tier: anonymous, or signed in elsewhere
 * with no grant there) is an outsider, whose events never identify it; a caller pulling by
 * its own grant on the organisation is named as for a push (docs/decisions.md, "Pull events
 * name only the organisation's own callers").
 */
export function pullClientOf(
  caller: RegistryCaller,
  r: OciRequest,
  target: RepoPath,
): RegistryClient {
  return caller.freeTierOnly(target) ? outsideClient : clientOf(caller, r);
}
