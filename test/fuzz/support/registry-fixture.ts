import fc from "fast-check";
import { ociClient } from "../../support/oci-client.ts";
import { buildImage } from "../../support/oci-layout.ts";
import { type RegistryTestServer, startRegistryServer } from "../../support/registry-server.ts";
import { checkOciAnswer } from "./answers.ts";
import { type HealthProbe, startHealthProbe } from "./health-probe.ts";
import { type AuthKind, authHeader, authKind, type Credentials, fitHead } from "./nasty-inputs.ts";
import type { RegistryFacts } from "./oci-inputs.ts";
import { type RawAnswer, type RawRequest, sendRaw } from "./raw-http.ts";
import { printable, showBytes, showRequest } from "./render.ts";

/** One registry request, the token symbolic. */
export interface OciCase {
  method: string;
  target: string;
  auth: AuthKind;
  headers: [string, string][];
  body?: Buffer;
}

const showCase = (c: OciCase) =>
  [
    `${c.method} ${c.target.length > 300 ? showBytes(c.target, 300) : c.target}`,
    `auth ${JSON.stringify(c.auth).slice(0, 80)}`,
    `headers ${JSON.stringify(c.headers)}`,
    c.body ? `body ${showBytes(c.body)}` : "no body",
  ].join(", ");

/** Registry cases from their parts; anyone may call unless `auth` says otherwise. */
export function ociCase(parts: {
  method: fc.Arbitrary<string>;
  target: fc.Arbitrary<string>;
  headers?: fc.Arbitrary<[string, string][]>;
  body?: fc.Arbitrary<Buffer | undefined>;
  auth?: fc.Arbitrary<AuthKind>;
}): fc.Arbitrary<OciCase> {
  return fc
    .record({
      method: parts.method,
      target: parts.target,
      auth: parts.auth ?? authKind,
      headers: parts.headers ?? fc.constant<[string, string][]>([]),
      body: parts.body ?? fc.constant(undefined),
    })
    .map((c) => printable(c, showCase));
}

/** A running registry with one pushed image, and how to send it checked requests. */
export interface RegistryFixture {
  registry: RegistryTestServer;
  facts: RegistryFacts;
  probe: HealthProbe;
  /**
   * Sends `c` (its target cut to fit Node's head limit), checks the answer against the OCI
   * door's promises, returns both.
   */
  send(c: OciCase): Promise<{ request: RawRequest; answer: RawAnswer }>;
  close(): Promise<void>;
}

/**
 * Starts a registry (SQLite, filesystem blobs) with `acme/app:v1` and `public/app:latest`
 * pushed, and the /healthz probe running on its API listener.
 */
export async function startRegistryFixture(): Promise<RegistryFixture> {
  const registry = await startRegistryServer({ store: "sqlite", blobs: "filesystem" });
  const image = buildImage("fuzz");
  await ociClient(registry.registryUrl, registry.ownerToken).pushImage("acme/app", "v1", image);
  const publicClient = ociClient(registry.registryUrl, registry.publicOrg.token);
  await publicClient.pushImage("public/app", "latest", image);
  const manifest = JSON.parse(image.manifest.toString()) as Pick<
    RegistryFacts,
    "config" | "layers"
  >;
  const facts: RegistryFacts = {
    names: ["acme/app", "public/app"],
    digests: [image.descriptor.digest, ...image.blobs.keys()],
    tags: ["v1", "latest"],
    config: manifest.config,
    layers: manifest.layers,
  };
  const credentials: Credentials = {
    owner: registry.ownerToken,
    otherAudience: registry.server.org.token,
  };
  const probe = startHealthProbe(registry.server.apiUrl);
  return {
    registry,
    facts,
    probe,
    async send(c) {
      const headers = [...c.headers];
      const authorization = authHeader(c.auth, credentials);
      if (authorization !== undefined) headers.push(["authorization", authorization]);
      const target = fitHead(c.target);
      const request: RawRequest = { method: c.method, target, headers, body: c.body };
      const answer = await sendRaw(registry.registryUrl, request);
      checkOciAnswer(showRequest(request), answer, c.method === "HEAD");
      return { request, answer };
    },
    async close() {
      await probe.stop();
      await registry.close();
    },
  };
}
