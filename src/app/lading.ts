import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import {
  createAuthenticator,
  createIssuerRoutes,
  createTokenIssuer,
  ensureBuiltInRoles,
  type TokenIssuer,
} from "../auth/index.ts";
import { type LadingConfig, urlForAddress } from "../config/index.ts";
import { createGrpcDoor } from "../doors/grpc/index.ts";
import { createRestDoor } from "../doors/rest/index.ts";
import {
  createGroupsService,
  createIdentitiesService,
  createRoleBindingsService,
  createRolesService,
} from "../iam/index.ts";
import { createListEngine, createPageTokens } from "../lists/index.ts";
import { createPingService } from "../ping/index.ts";
import type { HttpRequest, HttpResponse } from "../rpc/index.ts";
import { createApiHandler, createListener, createLogger } from "../server/index.ts";
import {
  createMetadataStore,
  getOrCreateSetting,
  type MetadataStore,
} from "../store/metadata/index.ts";

type RequestHandler = (req: HttpRequest, res: HttpResponse) => void;

/** A running Lading server. */
export interface RunningLading {
  /** The API URL: token issuer and API audience. */
  apiUrl: string;
  store: MetadataStore;
  tokens: TokenIssuer;
  log: Logger;
  /** Stops accepting, finishes requests in flight, then closes the store. */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

/** Opens and migrates the metadata store, then serves the API listener. */
export async function startLading(
  config: LadingConfig,
  log = createLogger({ level: config.logLevel }),
): Promise<RunningLading> {
  const store = createMetadataStore(config);
  try {
    await store.migrate();
    await ensureBuiltInRoles(store.db);
  } catch (error) {
    await store.close();
    throw error;
  }
  const { db } = store;
  const secret = await getOrCreateSetting(db, "page_token_secret", () =>
    randomBytes(32).toString("base64url"),
  );
  const ctx = { db, lists: createListEngine(db, createPageTokens(secret)) };
  const services = [
    createPingService(),
    createGroupsService(ctx),
    createIdentitiesService(ctx),
    createRolesService(ctx),
    createRoleBindingsService(ctx),
  ];

  let ready = false;
  let serve: RequestHandler = (_req, res) => {
    res.statusCode = 503;
    res.end();
  };
  const listener = createListener({ handler: (req, res) => serve(req, res), tls: config.tls });
  const address = await listener.listen(config.apiListen.host, config.apiListen.port);
  const apiUrl =
    config.apiUrl ?? urlForAddress(address.address, address.port, config.tls !== undefined);
  const tokens = createTokenIssuer({ db, issuerUrl: apiUrl });
  const { authenticate } = createAuthenticator({ db, tokens, audience: apiUrl });
  serve = createApiHandler({
    rest: createRestDoor({ services, authenticate }),
    grpc: createGrpcDoor({ services, authenticate, log }),
    routes: createIssuerRoutes({ db, tokens, issuerUrl: apiUrl, apiAudience: apiUrl }),
    log,
    isReady: () => ready,
  });
  ready = true;
  log.info({ apiUrl, store: store.dialect }, "lading serving");
  return {
    apiUrl,
    store,
    tokens,
    log,
    async close(options) {
      ready = false;
      await listener.close({ timeoutMs: options?.timeoutMs ?? 30_000 });
      await store.close();
    },
  };
}
