import type { RegistryClient } from "../../events/index.ts";
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
