import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { restCall } from "../support/api-client.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { checkStatusAnswer } from "./support/answers.ts";
import { fuzz, fuzzTestTimeout } from "./support/fuzz-run.ts";
import { type HealthProbe, startHealthProbe } from "./support/health-probe.ts";
import { jsonBody, queryText } from "./support/json-inputs.ts";
import {
  type AuthKind,
  authHeader,
  authKind,
  type Credentials,
  fitHead,
  pathText,
  uidLike,
} from "./support/nasty-inputs.ts";
import {
  contractServices,
  type FuzzRoute,
  fillTemplate,
  restRoutes,
} from "./support/proto-routes.ts";
import { sendRaw } from "./support/raw-http.ts";
import { printable, showBytes, showRequest } from "./support/render.ts";

/** One REST request, symbolic where the real value differs between runs (the token). */
interface RestCase {
  method: string;
  target: string;
  auth: AuthKind;
  contentType: string | undefined;
  body: Buffer | undefined;
}

const methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "PROPFIND"];
const contentTypes = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=latin1",
  "APPLICATION/JSON",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/grpc",
  "application/proto",
  "application/connect+json",
  "*/*",
  ";;;",
];

const showCase = (c: RestCase) =>
  [
    `${c.method} ${c.target.length > 300 ? showBytes(c.target, 300) : c.target}`,
    `auth ${JSON.stringify(c.auth)}`,
    c.contentType === undefined ? "no content-type" : `content-type ${c.contentType}`,
    c.body === undefined ? "no body" : `body ${showBytes(c.body)}`,
  ].join(", ");

/** Every route's binding: a fresh path from `values`, and the parts the caller varies. */
function restCase(
  routes: FuzzRoute[],
  parts: (route: FuzzRoute) => {
    values: fc.Arbitrary<string[]>;
    query?: fc.Arbitrary<string>;
    method?: fc.Arbitrary<string>;
    auth?: fc.Arbitrary<AuthKind>;
    contentType?: fc.Arbitrary<string | undefined>;
    body?: fc.Arbitrary<Buffer | undefined>;
  },
): fc.Arbitrary<RestCase> {
  return fc
    .constantFrom(...routes)
    .chain((route) => {
      const p = parts(route);
      return fc.record({
        method: p.method ?? fc.constant(route.httpMethod),
        target: fc
          .tuple(p.values, p.query ?? fc.constant(""))
          .map(([values, query]) => fitHead(`${fillTemplate(route.template, values)}${query}`)),
        auth: p.auth ?? fc.constant<AuthKind>("owner"),
        contentType: p.contentType ?? fc.constant("application/json"),
        body: p.body ?? fc.constant(route.body ? Buffer.from("{}") : undefined),
      });
    })
    .map((c) => printable(c, showCase));
}

describe("fuzz: REST door", () => {
  let server: TestServer;
  let probe: HealthProbe;
  let routes: FuzzRoute[];
  let known: string[];
  let credentials: Credentials;
  const budget = { runs: 300, ms: 2000 };

  before(async () => {
    server = await startTestServer("sqlite");
    routes = restRoutes(await contractServices());
    const org = server.org.groupUid;
    const child = await restCall(server.apiUrl, server.org.token, "POST", `/iam/v2/groups/${org}`, {
      name: "fuzz-child",
    });
    const identity = await restCall(
      server.apiUrl,
      server.org.token,
      "POST",
      `/iam/v2/identities/${org}`,
      { name: "fuzz-identity" },
    );
    if (!child.ok || !identity.ok) throw new Error("fuzz fixtures could not be created");
    known = [org, String(child.body.uid), String(identity.body.uid)];
    credentials = {
      owner: server.org.token,
      otherAudience: await server.token(server.org.identityUid, {
        audience: server.lading.registryAudience,
      }),
    };
    probe = startHealthProbe(server.apiUrl);
  });
  after(async () => {
    await probe?.stop();
    await server?.close();
  });

  async function send(c: RestCase): Promise<void> {
    const headers: [string, string][] = [];
    const authorization = authHeader(c.auth, credentials);
    if (authorization !== undefined) headers.push(["authorization", authorization]);
    if (c.contentType !== undefined) headers.push(["content-type", c.contentType]);
    const request = { method: c.method, target: c.target, headers, body: c.body };
    const answer = await sendRaw(server.apiUrl, request);
    checkStatusAnswer(showRequest(request), answer, c.method === "HEAD");
  }
  const options = () => ({ file: import.meta.filename, budget, probe });
  const knownValues = () => fc.array(uidLike(known), { minLength: 1, maxLength: 2 });
  const nastyValues = () =>
    fc.array(
      fc.array(pathText(known), { minLength: 1, maxLength: 3 }).map((s) => s.join("/")),
      { minLength: 1, maxLength: 2 },
    );

  it("survives random path parameters", { timeout: fuzzTestTimeout }, async (t) => {
    const arb = restCase(routes, () => ({ values: nastyValues() }));
    await fuzz(t, arb, send, options());
  });

  it("survives random query strings", { timeout: fuzzTestTimeout }, async (t) => {
    const arb = restCase(routes, (route) => ({
      values: knownValues(),
      query: queryText(route.input, known),
    }));
    await fuzz(t, arb, send, options());
  });

  it("survives random JSON bodies", { timeout: fuzzTestTimeout }, async (t) => {
    const arb = restCase(
      routes.filter((r) => r.body),
      (route) => ({
        values: knownValues(),
        body: jsonBody(route.body ?? route.input, known),
        contentType: fc.oneof(
          { arbitrary: fc.constant("application/json"), weight: 4 },
          { arbitrary: fc.constantFrom(undefined, ...contentTypes), weight: 1 },
        ),
      }),
    );
    await fuzz(t, arb, send, options());
  });

  it("survives random methods, content types and credentials", {
    timeout: fuzzTestTimeout,
  }, async (t) => {
    const arb = restCase(routes, (route) => ({
      values: knownValues(),
      method: fc.oneof(fc.constant(route.httpMethod), fc.constantFrom(...methods)),
      auth: authKind,
      contentType: fc.constantFrom(undefined, ...contentTypes),
      body: fc.option(jsonBody(route.body ?? route.input, known), { nil: undefined }),
    }));
    await fuzz(t, arb, send, options());
  });
});
