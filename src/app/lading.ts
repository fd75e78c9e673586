import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Logger } from "pino";
import { createSecurityAdvisoryService } from "../advisory/index.ts";
import {
  createAuthenticator,
  createTokenIssuer,
  ensureBuiltInRoles,
  type TokenIssuer,
} from "../auth/index.ts";
import { type LadingConfig, registryAudience, urlForAddress } from "../config/index.ts";
import { createConsoleFiles } from "../doors/console/index.ts";
import { createGrpcDoor } from "../doors/grpc/index.ts";
import { createLibrariesDoor } from "../doors/libraries/index.ts";
import { createOciDoor } from "../doors/oci/index.ts";
import { createOpenApiRoute, createRestDoor } from "../doors/rest/index.ts";
import { createIssuerRoutes, createSignInRoutes } from "../doors/sign-in/index.ts";
import {
  createSubscriptionsService,
  type Dispatcher,
  startDispatcher,
  startEventPruner,
  withOutbox,
  workerPullWriter,
} from "../events/index.ts";
import {
  createAccountAssociationsService,
  createExternalGroupRoleMappingsService,
  createGroupInvitesService,
  createGroupsService,
  createIdentitiesService,
  createIdentityProvidersService,
  createRoleBindingsService,
  createRolesService,
  createTermsService,
  federationGroupCheck,
} from "../iam/index.ts";
import { createArtifactsService } from "../libraries/index.ts";
import {
  type CollectStep,
  createGarbageCollectionsService,
  createLifecycleMetrics,
  createStorageService,
  type GcScheduler,
  startGcScheduler,
  totalStored,
  usageByOrg,
} from "../lifecycle/index.ts";
import { createListEngine, createPageTokens } from "../lists/index.ts";
import { createOutboundGuard, type Resolver } from "../outbound/index.ts";
import { createPingService } from "../ping/index.ts";
import {
  createEolTagsService,
  createImagesService,
  createReposService,
  createTagPoliciesService,
  createTagsService,
  createTermsGate,
  groupRepoCheck,
  startRetention,
} from "../registry/index.ts";
import type { HttpRequest, HttpResponse } from "../rpc/index.ts";
import {
  createApiHandler,
  createListener,
  createLogger,
  createPlatformMetrics,
  probeAnswer,
  requestIdOf,
} from "../server/index.ts";
import { type BlobStore, createBlobStore } from "../store/blobs/index.ts";
import {
  afterCommit,
  createMetadataStore,
  getOrCreateSetting,
  type MetadataStore,
} from "../store/metadata/index.ts";
import { createAdvisoriesService } from "../vulnerabilities/index.ts";
import { createImageInsightsService } from "../vulnreports/insights/index.ts";
import { createVulnReportHandlers } from "../vulnreports/reports/index.ts";
import {
  createScanWorker,
  defaultScanBounds,
  type MatchImage,
} from "../vulnreports/scans/index.ts";
import { signInEvents } from "./iam-events.ts";
import { platformGauges } from "./platform-gauges.ts";

type RequestHandler = (req: HttpRequest, res: HttpResponse) => void;

/**
 * Mutating methods that record no change event: the subscriptions service records its own,
 * and a garbage collection is the installation's, in no group whose subscribers could be told.
 */
const unrecordedMethods: ReadonlySet<string> = new Set([
  ...["CreateSubscription", "DeleteSubscription", "RedeliverDelivery", "TestSubscription"].map(
    (m) => `lading.events.v2.SubscriptionsService/${m}`,
  ),
  "lading.lifecycle.v2.GarbageCollectionService/RunGarbageCollection",
]);

/** What a listener answers between binding its port and being wired: 503. */
const notYetServing: RequestHandler = (_req, res) => {
  res.statusCode = 503;
  res.end();
};

/** A running Lading server. */
export interface RunningLading {
  /** The API URL: token issuer and API audience. */
  apiUrl: string;
  /** The registry URL; its host is the registry token audience. */
  registryUrl: string;
  /** The registry token audience. */
  registryAudience: string;
  store: MetadataStore;
  /** The blob store (images and library files). */
  blobs: BlobStore;
  tokens: TokenIssuer;
  log: Logger;
  /** This replica's garbage collector. */
  gc: GcScheduler;
  /** Stops accepting, finishes requests in flight, then closes the store. */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

/** What a caller may plug into a server besides its configuration. */
export interface LadingHooks {
  /** Computes an image's vulnerability report once it is scanned. Default: computeReport. */
  matchImage?: MatchImage;
  /** Time between prunes of old events. Default 10 minutes. */
  eventsPruneIntervalMs?: number;
  /** Time between tag retention runs (docs/registry-lifecycle.md). Default one hour. */
  tagRetentionIntervalMs?: number;
  /** The built console served at `/`. Default: console/dist of the Lading package. */
  consoleDir?: string;
  /**
   * Resolves host names for outbound requests. Default the system resolver; tests give names
   * that resolve to loopback without touching the machine's resolver.
   */
  resolve?: Resolver;
  /** How long `lading_storage_bytes` reuses a sum before reading it again. Default 60 s. */
  storageMetricsMaxAgeMs?: number;
  /** Steps each garbage collection runs first, under its lease (retention policies). */
  beforeCollect?: CollectStep[];
}

/** Opens and migrates the metadata store, then serves the API listener. */
export async function startLading(
  config: LadingConfig,
  log = createLogger({ level: config.logLevel, format: config.logFormat }),
  hooks: LadingHooks = {},
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
  const pageTokens = createPageTokens(secret);
  // Every request made on a tenant's or an anonymous caller's behalf goes through it (DESIGN §8a).
  const outbound = createOutboundGuard({ allow: config.outbound.allow, resolve: hooks.resolve });
  const ctx = { db, lists: createListEngine(db, pageTokens), outbound };
  const blobs = await createBlobStore({
    dataDir: config.dataDir,
    blobStoreUrl: config.blobStoreUrl,
    uploadMemoryBytes: config.uploadMemoryBytes,
  });
  const termsGate = createTermsGate(db, config.requiredTerms);
  // One set of process metrics, served on both listeners' /metrics after their own.
  const platformMetrics = createPlatformMetrics({
    gauges: platformGauges(db),
    storageMaxAgeMs: hooks.storageMetricsMaxAgeMs,
  });
  const registry = { ...ctx, blobs, termsGate };
  const services = withOutbox(
    [
      createPingService(),
      createGroupsService(ctx, [groupRepoCheck(db), federationGroupCheck(db)]),
      createIdentitiesService(ctx),
      createRolesService(ctx),
      createRoleBindingsService(ctx),
      createGroupInvitesService(ctx),
      // The gate reloads once the acceptance is visible to every connection, not before.
      createTermsService(ctx, { onAccept: () => afterCommit(db, termsGate.forget) }),
      createIdentityProvidersService(ctx),
      createExternalGroupRoleMappingsService(ctx),
      createAccountAssociationsService(ctx),
      createReposService(registry),
      createStorageService(registry),
      // The collector is started below, before any request is served.
      createGarbageCollectionsService({ ...ctx, operators: config.operators, gc: () => gc }),
      createTagsService(registry),
      createTagPoliciesService(registry),
      createImagesService(registry),
      // The registry URL is known once its listener is bound, before any request is served.
      createImageInsightsService(registry, { registryUrl: () => registryUrl }),
      createEolTagsService(registry, createVulnReportHandlers(registry)),
      createAdvisoriesService(ctx),
      createSecurityAdvisoryService({ db, tokens: pageTokens }),
      createArtifactsService({ ...ctx, publicOrg: config.publicOrg }),
      createSubscriptionsService({
        ...ctx,
        pageTokens,
        settings: config.events,
        // Both are known once the API listener is bound, before any request is served.
        apiUrl: () => apiUrl,
        wake: () => dispatcher?.wake(),
      }),
    ],
    // The API URL is known once its listener is bound, before any request is served. The
    // subscriptions service records its own events (created and deleted in the change's
    // transaction; a ping and a redelivery are deliveries, not changes).
    { db, apiUrl: () => apiUrl, skip: unrecordedMethods },
  );
  let dispatcher: Dispatcher | undefined;

  let ready = false;
  let serve = notYetServing;
  const listenerOptions = (name: string) => ({
    tls: config.tls,
    limits: config.connections,
    onAcceptError: (err: Error) =>
      log.warn({ err, listener: name }, "accepting a connection failed"),
  });
  const listener = createListener({
    handler: (req, res) => serve(req, res),
    ...listenerOptions("api"),
  });
  const address = await listener.listen(config.apiListen.host, config.apiListen.port);
  const apiUrl =
    config.apiUrl ?? urlForAddress(address.address, address.port, config.tls !== undefined);
  const tokens = createTokenIssuer({ db, issuerUrl: apiUrl });
  const { authenticate } = createAuthenticator({ db, tokens, audience: apiUrl });
  let serveRegistry = notYetServing;
  const registryListener = createListener({
    handler: (req, res) => serveRegistry(req, res),
    ...listenerOptions("registry"),
  });
  const registryAddress = await registryListener
    .listen(config.registryListen.host, config.registryListen.port)
    .catch(async (error: unknown) => {
      await listener.close({ timeoutMs: 1000 });
      await store.close();
      throw error;
    });
  const registryUrl =
    config.registryUrl ??
    urlForAddress(registryAddress.address, registryAddress.port, config.tls !== undefined);
  // Scans run off the request path; a push only queues one (docs/vulnerability-reports.md).
  const scans = createScanWorker({
    db,
    blobs,
    log: log.child({ component: "scans" }),
    match: hooks.matchImage,
    registryUrl,
    scan: config.scanImages,
    onScanned: platformMetrics.scan,
    // Off the thread that answers requests, within bounds (docs/security.md, "Scans").
    thread: {
      store: { dataDir: config.dataDir, databaseUrl: config.databaseUrl },
      blobs: { dataDir: config.dataDir, blobStoreUrl: config.blobStoreUrl },
      maxMemoryMib: Math.floor(config.scanMaxMemoryBytes / (1024 * 1024)),
      // The scans' reads filled SQLite's page cache of this process; give it back with them.
      onIdle: () => void store.releaseMemory().catch(() => undefined),
    },
    bounds: { ...defaultScanBounds, maxPackages: config.scanMaxPackages },
  });
  const lifecycleMetrics = createLifecycleMetrics({
    total: () => totalStored(db),
    perOrg: () => usageByOrg(db),
  });
  const oci = createOciDoor({
    metricsRegistries: [lifecycleMetrics.registry],
    db,
    blobs,
    tokens,
    registryUrl,
    audience: registryAudience(registryUrl),
    publicOrg: config.publicOrg,
    freeTierTags: config.freeTierTags,
    termsGate,
    log,
    eventsPulls: config.eventsPulls,
    pullWriter: workerPullWriter(config),
    pool: store.poolStats,
    changeMark: store.changeMark,
    sharedMetrics: platformMetrics.registry,
    requestIdOf,
    onManifestPushed: scans.onManifestPushed,
    generatedSbomReferrers: config.scanSbomReferrers,
    // The same readiness as the API listener's: one process, one state.
    probe: (path) => probeAnswer(path, () => ready),
  });
  const libraries = createLibrariesDoor({
    db,
    blobs,
    auth: oci.auth,
    registryUrl,
    publicOrg: config.publicOrg,
    log,
    requestIdOf,
    maxFileBytes: config.librariesMaxFileBytes,
  });
  // One listener, two protocols: library repositories own `/<ecosystem>/…`, OCI the rest.
  serveRegistry = (req, res) => {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    if (libraries.owns(q < 0 ? url : url.slice(0, q))) libraries.handler(req, res);
    else oci.handler(req, res);
  };
  serve = createApiHandler({
    rest: createRestDoor({ services, authenticate }),
    grpc: createGrpcDoor({ services, authenticate, log }),
    routes: [
      createOpenApiRoute(services),
      ...createIssuerRoutes({
        db,
        tokens,
        issuerUrl: apiUrl,
        apiAudience: apiUrl,
        allowedAudiences: [apiUrl, registryAudience(registryUrl)],
        outbound,
      }),
      ...createSignInRoutes({
        db,
        tokens,
        apiUrl,
        allowedAudiences: [apiUrl, registryAudience(registryUrl)],
        onSignInChanges: signInEvents(apiUrl),
        outbound,
      }),
    ],
    console: createConsoleFiles({
      dir: hooks.consoleDir,
      registryHost: registryAudience(registryUrl),
    }),
    log,
    isReady: () => ready,
    sharedMetrics: platformMetrics.registry,
  });
  dispatcher = startDispatcher({
    db,
    dialect: store.dialect,
    tokens,
    settings: config.events,
    outbound,
    log,
    userAgent: `Lading/${ladingVersion()}`,
    onAttempt: platformMetrics.delivery,
  });
  const pruner = startEventPruner({
    db,
    dialect: store.dialect,
    retentionMs: config.events.retentionMs,
    intervalMs: hooks.eventsPruneIntervalMs,
    log,
  });
  // Tag retention keeps its own hourly schedule and lease, beside the collector's.
  const retention = startRetention({
    db,
    registryUrl,
    intervalMs: hooks.tagRetentionIntervalMs,
    log,
  });
  // Every replica schedules; the lease lets one collect at a time (DESIGN §8).
  const gc = startGcScheduler({
    db,
    blobs,
    log: log.child({ component: "gc" }),
    intervalMs: config.gc.intervalMs,
    graceMs: config.gc.graceMs,
    historyRetentionMs: config.gc.historyRetentionMs,
    holder: randomUUID(),
    beforeCollect: hooks.beforeCollect,
    sweepUploads: () => oci.sweep(),
    onReport: lifecycleMetrics.collected,
  });
  ready = true;
  log.info({ apiUrl, registryUrl, store: store.dialect }, "lading serving");
  return {
    apiUrl,
    registryUrl,
    registryAudience: registryAudience(registryUrl),
    store,
    blobs,
    tokens,
    log,
    gc,
    async close(options) {
      ready = false;
      const timeoutMs = options?.timeoutMs ?? 30_000;
      await Promise.all([
        listener.close({ timeoutMs }),
        registryListener.close({ timeoutMs }),
        dispatcher?.close(Math.min(timeoutMs, config.events.timeoutMs)),
        pruner.close(),
        retention.close(),
        gc.close(),
      ]);
      outbound.close();
      // After the listeners: the pull events of the last requests are written before the store closes.
      await oci.close();
      await scans.close();
      await store.close();
      log.info({ apiUrl, registryUrl }, "lading stopped");
      log.flush?.();
    },
  };
}

/** The version in Lading's package.json, for the User-Agent of event deliveries. */
function ladingVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  return String(pkg.version);
}
