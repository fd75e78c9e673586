import { PingService } from "../gen/lading/ping/v2/ping_pb.js";
import { type BoundService, bindService } from "../rpc/index.ts";

/** The PingService: a connectivity check that needs no credentials. */
export function createPingService(): BoundService {
  return bindService(
    PingService,
    {
      async ping() {
        return { response: "pong" };
      },
    },
    new Set([PingService.method.ping.name].map((m) => `${PingService.typeName}/${m}`)),
  );
}
