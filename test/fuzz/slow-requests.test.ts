import { after, before, describe, it } from "node:test";
import { checkOciAnswer, checkStatusAnswer } from "./support/answers.ts";
import { fuzz, fuzzTestTimeout } from "./support/fuzz-run.ts";
import { type RawAnswer, sendRaw } from "./support/raw-http.ts";
import { type RegistryFixture, startRegistryFixture } from "./support/registry-fixture.ts";
import { printable, showAnswer } from "./support/render.ts";
import { openStalled, type SlowCase, sendSlowly, slowCase } from "./support/slow-client.ts";

/** Slow and partial requests on raw sockets: the server must survive and keep serving. */
describe("fuzz: slow and partial requests", () => {
  let f: RegistryFixture;
  let templates: Record<string, { origin: string; bytes: Buffer }>;
  const budget = { runs: 40, ms: 6000 };

  before(async () => {
    f = await startRegistryFixture();
    const { server, ownerToken, registryUrl } = f.registry;
    const api = server.apiUrl;
    const http = (head: string[], body = "") =>
      Buffer.from(
        `${head.join("\r\n")}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    const session = await fetch(`${registryUrl}/v2/acme/app/blobs/uploads/`, {
      method: "POST",
      headers: { authorization: `Bearer ${ownerToken}` },
    });
    const location = session.headers.get("location") ?? "/v2/acme/app/blobs/uploads/none";
    templates = {
      rest: {
        origin: api,
        bytes: http(
          [
            `POST /iam/v2/groups/${server.org.groupUid} HTTP/1.1`,
            "host: lading",
            `authorization: Bearer ${server.org.token}`,
            "content-type: application/json",
          ],
          JSON.stringify({ name: "slow", description: "d".repeat(2000) }),
        ),
      },
      connect: {
        origin: api,
        bytes: http(
          [
            "POST /lading.ping.v2.PingService/Ping HTTP/1.1",
            "host: lading",
            "content-type: application/json",
          ],
          "{}",
        ),
      },
      exchange: {
        origin: api,
        bytes: http(
          [
            "POST /sts/exchange HTTP/1.1",
            "host: lading",
            `authorization: Bearer ${server.org.token}`,
            "content-type: application/x-www-form-urlencoded",
          ],
          `aud=${encodeURIComponent(api)}`,
        ),
      },
      upload: {
        origin: registryUrl,
        bytes: http(
          [`PATCH ${location} HTTP/1.1`, "host: lading", `authorization: Bearer ${ownerToken}`],
          "x".repeat(4096),
        ),
      },
      h2: {
        origin: api,
        bytes: Buffer.concat([
          Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
          Buffer.from("000000040000000000", "hex"),
          Buffer.from("00000401050000000182868441", "hex"),
        ]),
      },
    };
  });
  after(() => f?.close());

  /** Normal requests on both listeners answer at once, as they should. */
  async function stillServing(): Promise<void> {
    const ping = { method: "GET", target: "/ping/v2/ping" };
    const pinged = await sendRaw(f.registry.server.apiUrl, ping, 1000);
    checkStatusAnswer("GET /ping/v2/ping", pinged);
    if (pinged.status !== 200) throw new Error(`ping after a slow request: ${showAnswer(pinged)}`);
    const base = { method: "GET", target: "/v2/" };
    const refused = await sendRaw(f.registry.registryUrl, base, 1000);
    checkOciAnswer("GET /v2/", refused);
  }

  it("keeps serving around requests cut, stalled or dripped on raw sockets", {
    timeout: fuzzTestTimeout,
  }, async (t) => {
    const arb = slowCase(["rest", "connect", "exchange", "upload", "h2"]).map((c) =>
      printable(c, (x) => JSON.stringify(x)),
    );
    const run = async (c: SlowCase) => {
      const template = templates[c.template];
      const answer = await sendSlowly(template.origin, template.bytes, c, c.template !== "h2");
      if (answer && answer.status >= 500) {
        throw new Error(`slow request answered ${showAnswer(answer)}`);
      }
      await stillServing();
    };
    await fuzz(t, arb, run, { file: import.meta.filename, budget, probe: f.probe });
  });

  it("keeps serving while hundreds of connections sit on partial heads", async () => {
    const partial = [
      "GET /ping/v2/ping HTTP/1.1\r\nhost: x\r\n",
      "POST /v2/acme/app/blobs/uploads/ HT",
      "PRI * HTTP/2.0\r\n",
      "G",
    ];
    const stalled = await openStalled(
      [f.registry.server.apiUrl, f.registry.registryUrl],
      partial,
      300,
    );
    try {
      await stillServing();
      const slow = await f.probe.drain();
      if (slow.length > 0) throw new Error(`/healthz was slow: ${slow[0]}`);
    } finally {
      stalled.close();
    }
    await stillServing();
  });

  it("answers a request head over the size limit with 431 on both listeners", async () => {
    for (const origin of [f.registry.server.apiUrl, f.registry.registryUrl]) {
      for (const size of [17 * 1024, 70 * 1024, 1024 * 1024]) {
        const target = `/v2/?q=${"a".repeat(size)}`;
        let answer: RawAnswer;
        try {
          answer = await sendRaw(origin, { method: "GET", target });
        } catch (error) {
          throw new Error(`a ${size}-byte request line on ${origin}: ${error}`);
        }
        if (answer.status !== 431) {
          throw new Error(`a ${size}-byte request line on ${origin}: ${showAnswer(answer)}`);
        }
      }
    }
    await stillServing();
  });
});
