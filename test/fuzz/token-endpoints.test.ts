import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { checkOciAnswer, checkStatusAnswer } from "./support/answers.ts";
import { fuzz, fuzzTestTimeout } from "./support/fuzz-run.ts";
import { fitHead, hex, nastyText, uidLike } from "./support/nasty-inputs.ts";
import { type RawRequest, sendRaw } from "./support/raw-http.ts";
import { type RegistryFixture, startRegistryFixture } from "./support/registry-fixture.ts";
import { printable, showBytes, showRequest } from "./support/render.ts";

/** Credentials by name, resolved against the running server when the case is sent. */
const credentialNames = [
  "none",
  "bearer-api",
  "bearer-registry",
  "basic-token-api",
  "basic-token-registry",
  "basic-uid-garbage",
  "basic-uid-api",
  "bearer-unsigned-lading",
  "bearer-foreign-issuer",
] as const;
type CredentialName = (typeof credentialNames)[number];
type Credential = CredentialName | { header: string };

/** A request to a token endpoint. */
interface TokenCase {
  method: string;
  target: string;
  credential: Credential;
  contentType?: string;
  body?: Buffer;
}

const showCase = (c: TokenCase) =>
  [
    `${c.method} ${c.target.length > 300 ? showBytes(c.target, 300) : c.target}`,
    `credential ${JSON.stringify(c.credential).slice(0, 120)}`,
    c.contentType === undefined ? "no content-type" : `content-type ${c.contentType}`,
    c.body ? `body ${showBytes(c.body)}` : "no body",
  ].join(", ");

const base64url = (text: string) => Buffer.from(text).toString("base64url");
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
/** An unsigned JWT with the given claims. */
const unsignedJwt = (claims: object) =>
  `${base64url('{"alg":"ES256","typ":"JWT"}')}.${base64url(JSON.stringify(claims))}.AAAA`;

const credential: fc.Arbitrary<Credential> = fc.oneof(
  { arbitrary: fc.constantFrom(...credentialNames), weight: 4 },
  {
    arbitrary: fc
      .oneof(
        fc.constantFrom("Basic", "Basic Og==", "Basic ::::", "Bearer", "Negotiate x"),
        fc.tuple(nastyText, nastyText).map(([u, p]) => basic(u, p)),
        fc.base64String({ maxLength: 60 }).map((s) => `Basic ${s}`),
        nastyText.map((s) => `Bearer ${s.replace(/[\r\n]/g, "")}`),
      )
      .map((header) => ({ header })),
    weight: 2,
  },
);

/** Query strings from `pairs`, values percent-encoded. */
const queryOf = (pairs: [string, string][]) =>
  pairs.length === 0
    ? ""
    : `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&")}`;

describe("fuzz: token endpoints", () => {
  let f: RegistryFixture;
  let uids: string[];
  const budget = { runs: 250, ms: 2600 };

  before(async () => {
    f = await startRegistryFixture();
    const { server } = f.registry;
    uids = [server.org.groupUid, server.org.identityUid, f.registry.publicOrg.groupUid];
  });
  after(() => f?.close());

  const options = () => ({ file: import.meta.filename, budget, probe: f.probe });

  function authorization(c: Credential): string | undefined {
    if (typeof c === "object") return c.header;
    const { server, ownerToken } = f.registry;
    const api = server.org.token;
    switch (c) {
      case "none":
        return undefined;
      case "bearer-api":
        return `Bearer ${api}`;
      case "bearer-registry":
        return `Bearer ${ownerToken}`;
      case "basic-token-api":
        return basic("_token", api);
      case "basic-token-registry":
        return basic("_token", ownerToken);
      case "basic-uid-garbage":
        return basic(server.org.identityUid, "garbage");
      case "basic-uid-api":
        return basic(server.org.identityUid, api);
      case "bearer-unsigned-lading":
        return `Bearer ${unsignedJwt({ iss: server.apiUrl, sub: server.org.identityUid, exp: 2e9 })}`;
      case "bearer-foreign-issuer":
        return `Bearer ${unsignedJwt({ iss: "https://issuer.invalid", sub: "x", exp: 2e9 })}`;
    }
  }

  function request(c: TokenCase): RawRequest {
    const headers: [string, string][] = [];
    const auth = authorization(c.credential);
    if (auth !== undefined) headers.push(["authorization", auth]);
    if (c.contentType !== undefined) headers.push(["content-type", c.contentType]);
    return { method: c.method, target: c.target, headers, body: c.body };
  }

  const scope = () =>
    fc.oneof(
      fc.constantFrom(
        "repository:acme/app:pull",
        "repository:acme/app:*",
        "repository:acme/app:pull,push,delete",
        "repository:public/app:pull",
        "repository:nobody/app:pull",
        "registry:catalog:*",
        "repository:acme/app:",
        "repository::pull",
        ":::",
        "repository:acme/app:pull repository:acme/app:push",
      ),
      fc
        .tuple(nastyText, nastyText, nastyText)
        .map(([type, name, actions]) => `${type}:${name}:${actions}`),
      fc.integer({ min: 50, max: 400 }).map((n) => `repository:acme/app:${"pull,".repeat(n)}`),
    );

  it("survives random /token requests", { timeout: fuzzTestTimeout }, async (t) => {
    const pairs = fc.array(
      fc.oneof(
        scope().map((s): [string, string] => ["scope", s]),
        fc
          .oneof(fc.constant(f.registry.host), nastyText)
          .map((s): [string, string] => ["service", s]),
        fc.oneof(uidLike(uids), nastyText).map((s): [string, string] => ["account", s]),
        fc.tuple(nastyText, nastyText),
      ),
      { maxLength: 6 },
    );
    const arb = fc
      .record({
        method: fc.constantFrom("GET", "GET", "GET", "HEAD", "POST"),
        target: pairs.map((p) => fitHead(`/token${queryOf(p)}`)),
        credential,
      })
      .map((c) => printable(c, showCase));
    const run = async (c: TokenCase) => {
      const req = request(c);
      checkOciAnswer(
        showRequest(req),
        await sendRaw(f.registry.registryUrl, req),
        c.method === "HEAD",
      );
    };
    await fuzz(t, arb, run, options());
  });

  /** The parameters of a token exchange, right and wrong. */
  const exchangeParams = () =>
    fc.array(
      fc.oneof(
        fc.oneof(uidLike(uids), nastyText).map((s): [string, string] => ["identity", s]),
        fc
          .oneof(fc.constantFrom(f.registry.server.apiUrl, f.registry.host), nastyText)
          .map((s): [string, string] => ["aud", s]),
        fc
          .tuple(fc.array(uidLike(uids), { maxLength: 20 }), fc.constantFrom(" ", ","))
          .map(([s, sep]): [string, string] => ["scopes", s.join(sep)]),
        fc.oneof(hex(64), nastyText).map((s): [string, string] => ["refresh_token", s]),
        fc.constantFrom<[string, string]>(
          ["grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"],
          ["code", "lsc_x"],
          ["code_verifier", "x"],
        ),
        fc.tuple(nastyText, nastyText),
      ),
      { maxLength: 6 },
    );

  it("survives random token exchanges and sign-in requests", {
    timeout: fuzzTestTimeout,
  }, async (t) => {
    const paths = [
      "/sts/exchange",
      "/sts/exchange_refresh_token",
      "/auth/v2/token",
      "/auth/v2/login",
      "/auth/v2/callback",
      "/auth/v2/logout",
      "/.well-known/openid-configuration",
      "/.well-known/jwks.json",
    ];
    const form = "application/x-www-form-urlencoded";
    const arb = fc
      .record({
        method: fc.constantFrom("GET", "POST", "POST", "PUT", "HEAD"),
        path: fc.oneof(
          { arbitrary: fc.constant("/sts/exchange"), weight: 3 },
          fc.constantFrom(...paths),
        ),
        query: exchangeParams(),
        form: fc.option(exchangeParams(), { nil: undefined }),
        raw: fc.option(
          fc.uint8Array({ maxLength: 80 }).map((b) => Buffer.from(b)),
          { nil: undefined },
        ),
        contentType: fc.constantFrom(
          form,
          `${form}; charset=utf-8`,
          "application/json",
          "text/plain",
          undefined,
        ),
        credential,
      })
      .map(({ method, path, query, form: body, raw, contentType, credential: c }) =>
        printable(
          {
            method,
            target: fitHead(`${path}${queryOf(query)}`),
            credential: c,
            contentType,
            body: raw ?? (body ? Buffer.from(queryOf(body).slice(1)) : undefined),
          },
          showCase,
        ),
      );
    const run = async (c: TokenCase) => {
      const req = request(c);
      checkStatusAnswer(
        showRequest(req),
        await sendRaw(f.registry.server.apiUrl, req),
        c.method === "HEAD",
      );
    };
    await fuzz(t, arb, run, options());
  });

  it("answers exchanges against identities with hostile issuer patterns in time", {
    timeout: fuzzTestTimeout,
  }, async (t) => {
    const { server } = f.registry;
    const owner = { authorization: `Bearer ${server.org.token}` };
    // Catastrophic-backtracking shapes: a backtracking engine takes time exponential in the
    // run of "a" before a character that makes the match fail (about 0.2 s at 24, 1.5 s at 27
    // with V8's). The issuer is matched before any key is fetched, so an unsigned token
    // reaches the pattern.
    const arb = fc
      .record({
        pattern: fc.constantFrom("(a+)+", "(a|a)+", "(a*)*b", "(.*a){12}", "([a-z]+)*$"),
        repeat: fc.integer({ min: 24, max: 27 }),
        tail: fc.constantFrom("!", "\u0000"),
      })
      .map((c) => printable(c, (x) => JSON.stringify(x)));
    const run = async (c: { pattern: string; repeat: number; tail: string }) => {
      const created = await fetch(`${server.apiUrl}/iam/v2/identities/${server.org.groupUid}`, {
        method: "POST",
        headers: { ...owner, "content-type": "application/json" },
        body: JSON.stringify({
          name: "hostile",
          claimMatch: { issuerPattern: c.pattern, subject: "x" },
        }),
      });
      const identity = ((await created.json()) as { uid?: string }).uid;
      if (!identity) return;
      const iss = `${"a".repeat(c.repeat)}${c.tail}`;
      const req = request({
        method: "POST",
        target: "/sts/exchange",
        credential: { header: `Bearer ${unsignedJwt({ iss, sub: "x", exp: 2e9 })}` },
        contentType: "application/x-www-form-urlencoded",
        body: Buffer.from(`identity=${identity}`),
      });
      try {
        checkStatusAnswer(showRequest(req), await sendRaw(server.apiUrl, req));
      } finally {
        const gone = `${server.apiUrl}/iam/v2/identities/${identity}`;
        await fetch(gone, { method: "DELETE", headers: owner });
      }
    };
    await fuzz(t, arb, run, { ...options(), budget: { runs: 12, ms: 4000 } });
  });
});
