import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { Readable, Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import {
  BlobNotFoundError,
  type BlobStoreDriver,
  DigestMismatchError,
  InvalidDigestError,
  InvalidUploadStateError,
  RangeNotSatisfiableError,
  UploadNotFoundError,
  type UploadState,
} from "../../src/store/blobs/index.ts";
import { blobDrivers, createTestBlobStore, type TestBlobStore } from "./drivers.ts";

const sha256 = (data: Buffer | string) =>
  `sha256:${createHash("sha256").update(data).digest("hex")}`;
const sha512 = (data: Buffer | string) =>
  `sha512:${createHash("sha512").update(data).digest("hex")}`;

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** `sizeMiB` MiB of deterministic, non-repeating-per-MiB bytes, produced lazily. */
function generated(sizeMiB: number, failAfterMiB?: number, seed = 0): Readable {
  let i = 0;
  return new Readable({
    read() {
      if (failAfterMiB !== undefined && i === failAfterMiB) {
        this.destroy(new Error("source failed"));
        return;
      }
      if (i === sizeMiB) {
        this.push(null);
        return;
      }
      const chunk = Buffer.alloc(1 << 20, `block ${seed}.${i++} `);
      this.push(chunk);
    },
  });
}

function generatedDigest(sizeMiB: number, upToMiB = sizeMiB) {
  const hash = createHash("sha256");
  for (let i = 0; i < Math.min(sizeMiB, upToMiB); i++)
    hash.update(Buffer.alloc(1 << 20, `block 0.${i} `));
  return `sha256:${hash.digest("hex")}`;
}

const invalidDigests = [
  "sha256:../../../../etc/passwd",
  `sha256:${"A".repeat(64)}`,
  `sha256:${"a".repeat(63)}`,
  `sha256:${"a".repeat(64)}/`,
  `sha384:${"a".repeat(96)}`,
  `sha512:${"a".repeat(64)}`,
  `sha256:${"a".repeat(64)}\n`,
  "",
];

for (const driver of blobDrivers) {
  describe(`blob store contract: ${driver}`, () => {
    let env: TestBlobStore;
    let store: BlobStoreDriver;

    before(async () => {
      env = await createTestBlobStore(driver);
      store = env.open();
    });
    after(async () => env.cleanup());

    it("puts, stats, gets, ranges and deletes", async () => {
      const data = Buffer.from("hello, content-addressed world");
      const stored = await store.put(Readable.from([data]));
      assert.deepEqual(stored, { digest: sha256(data), size: data.length });
      assert.deepEqual(await store.stat(stored.digest), { size: data.length });
      assert.deepEqual(await readAll(await store.get(stored.digest)), data);
      const range = await readAll(await store.get(stored.digest, { start: 7, end: 13 }));
      assert.equal(range.toString(), "content");
      const tail = await readAll(await store.get(stored.digest, { start: 20, end: 999 }));
      assert.equal(tail.toString(), data.subarray(20).toString());
      await assert.rejects(
        store.get(stored.digest, { start: data.length, end: data.length + 5 }),
        (error) => error instanceof RangeNotSatisfiableError && error.size === data.length,
      );
      const again = await store.put(Readable.from([data]), { expectedDigest: stored.digest });
      assert.deepEqual(again, stored);
      await store.delete(stored.digest);
      await store.delete(stored.digest);
      assert.equal(await store.stat(stored.digest), undefined);
      await assert.rejects(store.get(stored.digest), BlobNotFoundError);
    });

    it("stores an empty blob", async () => {
      const stored = await store.put(Readable.from([]), { expectedDigest: sha256("") });
      assert.equal(stored.size, 0);
      assert.equal((await readAll(await store.get(stored.digest))).length, 0);
    });

    it("stores nothing when the digest does not match", async () => {
      const data = Buffer.from("the real content");
      const claimed = sha256("something else");
      await assert.rejects(
        store.put(Readable.from([data]), { expectedDigest: claimed }),
        (error) => error instanceof DigestMismatchError && error.actual === sha256(data),
      );
      assert.equal(await store.stat(claimed), undefined);
      assert.equal(await store.stat(sha256(data)), undefined);
    });

    it("supports sha512 from the algorithm option and from the expected digest", async () => {
      const data = Buffer.from("five hundred and twelve bits");
      const byOption = await store.put(Readable.from([data]), { algorithm: "sha512" });
      assert.equal(byOption.digest, sha512(data));
      const byDigest = await store.put(Readable.from([data]), { expectedDigest: sha512(data) });
      assert.equal(byDigest.digest, sha512(data));
      assert.deepEqual(
        await readAll(await store.get(sha512(data), { start: 0, end: 3 })),
        data.subarray(0, 4),
      );
    });

    it("continues a chunked upload on fresh instances and verifies the whole content", async () => {
      const parts = [Buffer.alloc(1000, "a"), Buffer.alloc(3, "b"), Buffer.alloc(70_000, "c")];
      const whole = Buffer.concat(parts);
      let state: UploadState = await store.createUpload();
      state = await store.appendUpload(state, Readable.from([parts[0]]));
      for (const part of parts.slice(1)) {
        const replica = env.open();
        const restored = JSON.parse(JSON.stringify(state)) as UploadState;
        state = await replica.appendUpload(restored, Readable.from([part]));
      }
      assert.equal(state.size, whole.length);
      const committer = env.open();
      const serialised = JSON.parse(JSON.stringify(state)) as UploadState;
      await assert.rejects(committer.commitUpload(serialised, sha256("nope")), DigestMismatchError);
      assert.equal(await committer.stat(sha256("nope")), undefined);
      const stored = await committer.commitUpload(serialised, sha256(whole));
      assert.deepEqual(stored, { digest: sha256(whole), size: whole.length });
      assert.deepEqual(await readAll(await store.get(stored.digest)), whole);
    });

    it("commits a chunked upload larger than a part", async () => {
      const sizes = [3, 7, 2];
      const whole = createHash("sha256");
      let state = await store.createUpload();
      for (const [n, size] of sizes.entries()) {
        for await (const chunk of generated(size, undefined, n)) whole.update(chunk as Buffer);
        state = await env.open().appendUpload(state, generated(size, undefined, n));
      }
      const digest = `sha256:${whole.digest("hex")}`;
      const stored = await env.open().commitUpload(state, digest);
      assert.deepEqual(stored, { digest, size: 12 << 20 });
      const hash = createHash("sha256");
      for await (const chunk of await store.get(digest)) hash.update(chunk as Buffer);
      assert.equal(`sha256:${hash.digest("hex")}`, digest);
    });

    it("appends chunks of any size on one instance and sends ranges as its stream does", async () => {
      const parts = [randomBytes(3 << 19), randomBytes((2 << 20) + 5), randomBytes(1 << 20)];
      const whole = Buffer.concat(parts);
      let state = await store.createUpload();
      for (const part of parts) state = await store.appendUpload(state, Readable.from([part]));
      const { digest } = await store.commitUpload(state, sha256(whole));
      const range = { start: 10, end: whole.length - 10 };
      const expected = whole.subarray(range.start, range.end + 1);
      assert.deepEqual(await readAll(await store.get(digest, range)), expected);
      const body = await store.get(digest, range);
      if (driver === "s3") {
        assert.equal(body.sendTo, undefined);
        body.destroy();
        return;
      }
      const received: Buffer[] = [];
      const out = new Writable({
        write(chunk, _encoding, done) {
          received.push(Buffer.from(chunk)); // copied: sendTo reuses its blocks
          done();
        },
      });
      assert.ok(body.sendTo, "the filesystem store sends without a stream");
      await body.sendTo(out);
      assert.deepEqual(Buffer.concat(received), expected);
    });

    it("commits a sha512 upload seen from the start by this instance", async () => {
      let state = await store.createUpload();
      state = await store.appendUpload(state, Readable.from([Buffer.from("abc")]));
      state = await store.appendUpload(state, Readable.from([Buffer.from("def")]));
      const stored = await store.commitUpload(state, sha512("abcdef"));
      assert.equal(stored.digest, sha512("abcdef"));
    });

    it("aborts an upload", async () => {
      let state = await store.createUpload();
      state = await store.appendUpload(state, Readable.from([Buffer.from("abandoned")]));
      await store.abortUpload(state);
      await store.abortUpload(state);
      await assert.rejects(store.commitUpload(state, sha256("abandoned")), UploadNotFoundError);
      assert.equal(await store.stat(sha256("abandoned")), undefined);
    });

    it("sweeps abandoned uploads and interrupted writes, sparing recent ones", async () => {
      let state = await store.createUpload();
      state = await store.appendUpload(state, Readable.from([Buffer.from("left behind")]));
      assert.equal(await store.sweep(60_000), 0);
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.ok((await store.sweep(0)) >= 1);
      await assert.rejects(store.commitUpload(state, sha256("left behind")), UploadNotFoundError);
    });

    it("keeps the uploads it is told are live, whatever their age", async () => {
      let live = await store.createUpload();
      live = await store.appendUpload(live, Readable.from([Buffer.from("still wanted")]));
      let dead = await store.createUpload();
      dead = await store.appendUpload(dead, Readable.from([Buffer.from("abandoned")]));
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.ok((await store.sweep(0, [live, { size: 0, forged: true }])) >= 1);
      await assert.rejects(store.commitUpload(dead, sha256("abandoned")), UploadNotFoundError);
      const stored = await store.commitUpload(live, sha256("still wanted"));
      assert.equal(stored.digest, sha256("still wanted"));
      await store.delete(stored.digest);
    });

    it("rejects invalid digests before touching storage", async () => {
      for (const digest of invalidDigests) {
        await assert.rejects(store.stat(digest), InvalidDigestError, digest);
        await assert.rejects(store.get(digest), InvalidDigestError, digest);
        await assert.rejects(store.delete(digest), InvalidDigestError, digest);
        await assert.rejects(
          store.put(Readable.from([Buffer.from("x")]), { expectedDigest: digest }),
          InvalidDigestError,
        );
        const state = await store.createUpload();
        await assert.rejects(store.commitUpload(state, digest), InvalidDigestError);
        await store.abortUpload(state);
      }
    });

    it("rejects forged upload state", async () => {
      const real = await store.createUpload();
      const forgeries: UploadState[] = [{ size: 0 }, { ...real, size: -1 }, { ...real, size: 1.5 }];
      for (const [key, value] of Object.entries(real)) {
        if (typeof value === "string") {
          forgeries.push({ ...real, [key]: "../../../escape" }, { ...real, [key]: `${value}/..` });
        } else if (Array.isArray(value) || key !== "size") {
          forgeries.push({ ...real, [key]: "not the right type" });
        }
      }
      for (const forged of forgeries) {
        const data = Readable.from([Buffer.from("x")]);
        await assert.rejects(store.appendUpload(forged, data), InvalidUploadStateError);
        await assert.rejects(store.commitUpload(forged, sha256("")), InvalidUploadStateError);
        await assert.rejects(store.abortUpload(forged), InvalidUploadStateError);
      }
      await store.abortUpload(real);
    });

    it("leaves nothing visible when the source fails halfway", async () => {
      await assert.rejects(store.put(generated(8, 3)), /source failed/);
      await assert.rejects(
        store.put(generated(8, 3), { expectedDigest: generatedDigest(8) }),
        /source failed/,
      );
      assert.equal(await store.stat(generatedDigest(8)), undefined);
      assert.equal(await store.stat(generatedDigest(8, 3)), undefined);
    });

    it("puts a multi-part blob whose digest is not known in advance, leaving no temp data", async () => {
      const stored = await store.put(generated(12));
      assert.deepEqual(stored, { digest: generatedDigest(12), size: 12 << 20 });
      assert.deepEqual(await store.stat(stored.digest), { size: 12 << 20 });
      assert.equal(await store.sweep(0), 0);
      await store.delete(stored.digest);
    });

    it("round-trips a 64 MiB blob with bounded memory", async () => {
      const digest = generatedDigest(64);
      let peak = 0;
      const baseline = process.memoryUsage().rss;
      const timer = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss - baseline);
      }, 5);
      try {
        const stored = await store.put(generated(64), { expectedDigest: digest });
        assert.equal(stored.size, 64 << 20);
        const hash = createHash("sha256");
        for await (const chunk of await store.get(digest)) hash.update(chunk as Buffer);
        assert.equal(`sha256:${hash.digest("hex")}`, digest);
      } finally {
        clearInterval(timer);
      }
      assert.ok(peak < 40 << 20, `rss grew by ${(peak / 2 ** 20).toFixed(1)} MiB`);
      if (process.env.LADING_TEST_VERBOSE) console.log(`${driver}: rss +${peak >> 20} MiB`);
    });
  });
}
