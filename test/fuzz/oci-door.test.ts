import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { fuzz, fuzzTestTimeout } from "./support/fuzz-run.ts";
import { type AuthKind, nastyText } from "./support/nasty-inputs.ts";
import { digest, reference, repoName } from "./support/oci-inputs.ts";
import {
  type OciCase,
  ociCase,
  type RegistryFixture,
  startRegistryFixture,
} from "./support/registry-fixture.ts";

const methods = ["GET", "HEAD", "PUT", "POST", "PATCH", "DELETE", "OPTIONS"];
const rangeValues = [
  "bytes=0-10",
  "bytes=-5",
  "bytes=10-",
  "bytes=999999-",
  "bytes=5-1",
  "bytes=0-0,2-3",
  "bytes=-0",
  "items=0-1",
  "bytes=",
  "bytes=99999999999999999999-",
];
const contentRanges = ["0-0", "0-9", "5-1", "bytes 0-3", "-1-2", "0-99999999999999999999", "x"];

/** Reads and every other request under /v2/ (pushes: oci-push.test.ts). */
describe("fuzz: OCI door", () => {
  let f: RegistryFixture;
  const budget = { runs: 250, ms: 2600 };
  before(async () => {
    f = await startRegistryFixture();
  });
  after(() => f?.close());

  const options = () => ({ file: import.meta.filename, budget, probe: f.probe });
  const run = async (c: OciCase) => {
    await f.send(c);
  };
  const query = () =>
    fc
      .array(
        fc.tuple(
          fc.constantFrom("n", "last", "digest", "mount", "from", "artifactType", "start", "end"),
          fc.oneof(
            nastyText,
            digest(f.facts),
            fc.constantFrom("0", "-1", "99999999999", "acme/app"),
          ),
        ),
        { maxLength: 3 },
      )
      .map((pairs) =>
        pairs.length === 0
          ? ""
          : `?${pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&")}`,
      );

  it("survives random requests under /v2/", { timeout: fuzzTestTimeout }, async (t) => {
    const tail = fc.oneof(
      reference(f.facts).map((x) => `manifests/${x}`),
      digest(f.facts).map((x) => `blobs/${x}`),
      fc.constant("blobs/uploads/"),
      fc.uuid().map((x) => `blobs/uploads/${x}`),
      nastyText.map((x) => `blobs/uploads/${encodeURIComponent(x)}`),
      fc.constant("tags/list"),
      digest(f.facts).map((x) => `referrers/${x}`),
      reference(f.facts).map((x) => `_lading/history/${x}`),
      nastyText.map(encodeURIComponent),
    );
    const target = fc.oneof(
      {
        arbitrary: fc
          .tuple(repoName(f.facts), tail, query())
          .map(([n, t, q]) => `/v2/${n}/${t}${q}`),
        weight: 8,
      },
      {
        arbitrary: fc.constantFrom("/v2/", "/v2", "/v2/_catalog", "/v2/_catalog?n=-1", "/v2//"),
        weight: 1,
      },
    );
    const arb = ociCase({
      method: fc.constantFrom(...methods),
      target,
      body: fc.option(
        fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
        { nil: undefined },
      ),
    });
    await fuzz(t, arb, run, options());
  });

  it("survives Range and Content-Range headers on blobs", {
    timeout: fuzzTestTimeout,
  }, async (t) => {
    const arb = ociCase({
      method: fc.constantFrom("GET", "HEAD"),
      target: fc
        .tuple(fc.constantFrom(...f.facts.names), digest(f.facts))
        .map(([n, d]) => `/v2/${n}/blobs/${d}`),
      headers: fc
        .tuple(fc.constantFrom(...rangeValues), fc.constantFrom(...contentRanges))
        .map(([range, contentRange]) => [
          ["range", range],
          ["content-range", contentRange],
        ]),
      auth: fc.constantFrom<AuthKind>("owner", "none"),
    });
    await fuzz(t, arb, run, options());
  });

  it("survives random tag history requests", { timeout: fuzzTestTimeout }, async (t) => {
    const time = fc.oneof(
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      fc.constantFrom(
        "2026-01-01",
        "2026-13-01",
        "2026-02-30T00:00:00Z",
        "0",
        "-1",
        "now",
        "2026-01-01T00:00:00+25:00",
      ),
      nastyText,
    );
    const target = fc
      .tuple(repoName(f.facts), reference(f.facts), fc.option(time), fc.option(time))
      .map(([n, tag, start, end]) => {
        const q = new URLSearchParams();
        if (start !== null) q.set("start", start);
        if (end !== null) q.set("end", end);
        const qs = q.toString();
        return `/v2/${n}/_lading/history/${tag}${qs ? `?${qs}` : ""}`;
      });
    const arb = ociCase({ method: fc.constantFrom("GET", "GET", "GET", "HEAD", "POST"), target });
    await fuzz(t, arb, run, options());
  });
});
