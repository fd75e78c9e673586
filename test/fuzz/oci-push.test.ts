import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { expect } from "./support/answers.ts";
import { fuzz, fuzzTestTimeout } from "./support/fuzz-run.ts";
import { type AuthKind, nastyText } from "./support/nasty-inputs.ts";
import {
  defectiveManifest,
  digest,
  digestOf,
  type ManifestBody,
  manifestBody,
  manifestContentType,
  reference,
} from "./support/oci-inputs.ts";
import {
  type OciCase,
  type RegistryFixture,
  startRegistryFixture,
} from "./support/registry-fixture.ts";
import { printable, showBytes, showRequest } from "./support/render.ts";

/** A push: where, how the session starts, its chunks, the digest that closes it. */
interface UploadCase {
  name: string;
  start: string;
  chunks: { bytes: Buffer; range: string; shortLength: boolean }[];
  /** `right`, `wrong` (a digest of other bytes), or the digest text itself. */
  finish: string;
}

/** A manifest PUT: where, what, as which content type, by whom. */
interface PutCase {
  name: string;
  reference: string;
  body: ManifestBody;
  contentType: string;
  auth: AuthKind;
}

const showPut = (p: PutCase) =>
  [
    `PUT /v2/${p.name}/manifests/${showBytes(p.reference, 200)}`,
    `content-type ${JSON.stringify(p.contentType)}`,
    `auth ${JSON.stringify(p.auth)}`,
    `defects ${JSON.stringify(p.body.defects)}`,
    `body ${showBytes(p.body.bytes)}`,
  ].join(", ");

const contentRanges = ["0-0", "0-9", "5-1", "bytes 0-3", "-1-2", "0-99999999999999999999", "x"];
const validDigest = /^sha(256:[a-f0-9]{64}|512:[a-f0-9]{128})$/;

/** Pushes through the OCI door: upload sessions and manifest PUTs. */
describe("fuzz: OCI door, pushes", () => {
  let f: RegistryFixture;
  const budget = { runs: 200, ms: 2000 };
  before(async () => {
    f = await startRegistryFixture();
  });
  after(() => f?.close());

  const options = () => ({ file: import.meta.filename, budget, probe: f.probe });

  const putCases = (body: fc.Arbitrary<ManifestBody>): fc.Arbitrary<PutCase> =>
    fc
      .record({
        name: fc.constantFrom("acme/app", "acme/fresh"),
        reference: fc.oneof(fc.constant("fuzz"), fc.constant("by-digest"), reference(f.facts)),
        body,
        contentType: manifestContentType,
        auth: fc.constantFrom<AuthKind>("owner", "owner", "owner", "none", "other-audience"),
      })
      .map((p) => printable(p, showPut));

  const put = (p: PutCase) => {
    const ref = p.reference === "by-digest" ? digestOf(p.body.bytes) : p.reference;
    return f.send({
      method: "PUT",
      target: `/v2/${p.name}/manifests/${ref}`,
      auth: p.auth,
      headers: p.contentType ? [["content-type", p.contentType]] : [],
      body: p.body.bytes,
    });
  };

  /** A push: start a session (maybe mounting), send chunks, close it with a digest. */
  const upload = (): fc.Arbitrary<UploadCase> =>
    fc.record({
      name: fc.constantFrom("acme/app", "acme/fresh"),
      start: fc.oneof(
        fc.constant(""),
        digest(f.facts).map((d) => `?mount=${encodeURIComponent(d)}&from=acme/app`),
        fc
          .tuple(digest(f.facts), nastyText)
          .map(([d, f]) => `?mount=${encodeURIComponent(d)}&from=${encodeURIComponent(f)}`),
      ),
      chunks: fc.array(
        fc.record({
          bytes: fc.uint8Array({ minLength: 1, maxLength: 64 }).map((b) => Buffer.from(b)),
          range: fc.oneof(fc.constantFrom("right", "none"), fc.constantFrom(...contentRanges)),
          shortLength: fc.boolean(),
        }),
        { maxLength: 3 },
      ),
      finish: fc.oneof(fc.constantFrom("right", "wrong"), digest(f.facts)),
    });

  it("survives upload sessions with bad chunks and digests", {
    timeout: fuzzTestTimeout,
  }, async (t) => {
    const arb = upload().map((u) =>
      printable(u, (x) =>
        showBytes(
          JSON.stringify({
            ...x,
            chunks: x.chunks.map((c) => ({ ...c, bytes: c.bytes.toString("hex") })),
          }),
        ),
      ),
    );
    const flow = async (u: UploadCase) => {
      const started = await f.send({
        method: "POST",
        target: `/v2/${u.name}/blobs/uploads/${u.start}`,
        auth: "owner",
        headers: [],
      });
      const location = started.answer.headers.location;
      if (started.answer.status !== 202 || !location) return;
      let size = 0;
      const sent: Buffer[] = [];
      for (const chunk of u.chunks) {
        const headers: [string, string][] = [["content-type", "application/octet-stream"]];
        const end = size + chunk.bytes.length - 1;
        if (chunk.range === "right") headers.push(["content-range", `${size}-${end}`]);
        else if (chunk.range !== "none") headers.push(["content-range", chunk.range]);
        if (chunk.shortLength) headers.push(["content-length", String(chunk.bytes.length - 1)]);
        const patched = await f.send({
          method: "PATCH",
          target: location,
          auth: "owner",
          headers,
          body: chunk.bytes,
        });
        if (patched.answer.status === 202) {
          sent.push(chunk.shortLength ? chunk.bytes.subarray(0, -1) : chunk.bytes);
          size = Number(/-(\d+)$/.exec(patched.answer.headers.range ?? "")?.[1] ?? -1) + 1;
        }
      }
      const whole = Buffer.concat(sent);
      const d =
        u.finish === "right"
          ? digestOf(whole)
          : u.finish === "wrong"
            ? digestOf(Buffer.from("x"))
            : u.finish;
      await f.send({
        method: "PUT",
        target: `${location}?digest=${encodeURIComponent(d)}`,
        auth: "owner",
        headers: [],
      });
    };
    await fuzz(t, arb, flow, options());
  });

  it("refuses to mount an invalid digest", { timeout: fuzzTestTimeout }, async (t) => {
    const invalid = digest(f.facts).filter((d) => !validDigest.test(d));
    const arb = fc
      .tuple(invalid, fc.constantFrom("acme/app", "public/app", "acme/nothing"))
      .map(([d, from]) => ({
        method: "POST",
        target: `/v2/acme/app/blobs/uploads/?mount=${encodeURIComponent(d)}&from=${from}`,
        auth: "owner" as const,
        headers: [] as [string, string][],
      }))
      .map((c) => printable(c, (x) => `POST ${x.target}`));
    const mount = async (c: OciCase) => {
      const { request, answer } = await f.send(c);
      expect(
        answer.status >= 400,
        "mount of an invalid digest accepted",
        showRequest(request),
        answer,
      );
    };
    await fuzz(t, arb, mount, options());
  });

  it("survives random manifest PUTs", {
    timeout: fuzzTestTimeout,
  }, async (t) => {
    const check = async (p: PutCase) => {
      await put(p);
    };
    await fuzz(t, putCases(manifestBody(f.facts)), check, options());
  });

  it("refuses manifests with a wrong schemaVersion, a duplicate key or invalid UTF-8", {
    timeout: fuzzTestTimeout,
  }, async (t) => {
    const refused = async (p: PutCase) => {
      const { request, answer } = await put(p);
      const defects = p.body.defects.join(", ");
      expect(
        answer.status >= 400,
        `accepted a manifest with ${defects}`,
        showRequest(request),
        answer,
      );
    };
    await fuzz(t, putCases(defectiveManifest(f.facts)), refused, options());
  });
});
