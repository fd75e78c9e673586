import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { describe, it } from "node:test";
import { LibraryError } from "../../../libraries/index.ts";
import { type MultipartLimits, parseFormBoundary, readMultipartForm } from "./multipart-form.ts";

const boundary = "----lading-boundary-7MA4YWxk";
const limits: MultipartLimits = { parts: 10, fieldBytes: 64, totalFieldBytes: 200, files: 1 };

function field(name: string, value: string): Buffer {
  return Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
}

function filePart(name: string, filename: string, bytes: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    bytes,
    Buffer.from("\r\n"),
  ]);
}

const closing = Buffer.from(`--${boundary}--\r\n`);

async function* chunks(body: Buffer, size: number) {
  for (let at = 0; at < body.length; at += size) yield body.subarray(at, at + size);
}

/** Reads `body` in chunks of `size`, collecting each file's bytes. */
async function read(body: Buffer, size: number, options: Partial<MultipartLimits> = {}) {
  const files: { field: string; filename: string; bytes: Buffer }[] = [];
  const fields = await readMultipartForm(
    chunks(body, size),
    boundary,
    { ...limits, ...options },
    async (file) => {
      const parts: Buffer[] = [];
      for await (const chunk of file.body) parts.push(chunk as Buffer);
      files.push({ field: file.field, filename: file.filename, bytes: Buffer.concat(parts) });
    },
  );
  return { fields, files };
}

describe("readMultipartForm", () => {
  // File bytes with near-misses of the delimiter, which must pass through untouched.
  const content = Buffer.concat([
    Buffer.from(`\r\n--${boundary.slice(0, -1)}x\r\n-\r\n--`),
    randomBytes(5000),
    Buffer.from(`\r\n--${boundary.slice(0, 10)}`),
  ]);
  const body = Buffer.concat([
    Buffer.from("preamble to ignore\r\n"),
    field(":action", "file_upload"),
    field("classifiers", "A"),
    field("classifiers", 'B; with "quotes"'),
    filePart("content", "pkg-1.0.tar.gz", content),
    field("after", ""),
    closing,
  ]);

  for (const size of [1, 2, 3, 7, 31, 64, 1000, body.length]) {
    it(`reads fields and the file whatever the chunking (${size} bytes)`, async () => {
      const { fields, files } = await read(body, size);
      assert.deepEqual(fields.get(":action"), ["file_upload"]);
      assert.deepEqual(fields.get("classifiers"), ["A", 'B; with "quotes"']);
      assert.deepEqual(fields.get("after"), [""]);
      assert.equal(files.length, 1);
      assert.equal(files[0].filename, "pkg-1.0.tar.gz");
      assert.ok(files[0].bytes.equals(content));
    });
  }

  const refusals: [string, Buffer, Partial<MultipartLimits>, RegExp][] = [
    ["no boundary", Buffer.from("just text"), {}, /no boundary/],
    [
      "a truncated file",
      Buffer.concat([filePart("content", "a.whl", content)]).subarray(0, 300),
      {},
      /ends inside file/,
    ],
    ["a truncated field", field("name", "xyz").subarray(0, -4), {}, /ends inside field/],
    [
      "no closing boundary",
      Buffer.concat([field("name", "x"), Buffer.from(`--${boundary}`)]),
      {},
      /ends after a boundary/,
    ],
    [
      "a long field",
      Buffer.concat([field("name", "x".repeat(65)), closing]),
      {},
      /longer than 64 bytes/,
    ],
    [
      "too many field bytes",
      Buffer.concat([...Array.from({ length: 4 }, () => field("f", "y".repeat(60))), closing]),
      {},
      /together/,
    ],
    [
      "too many parts",
      Buffer.concat([...Array.from({ length: 11 }, () => field("f", "")), closing]),
      {},
      /more than 10 parts/,
    ],
    [
      "two files",
      Buffer.concat([
        filePart("content", "a", Buffer.from("1")),
        filePart("content", "b", Buffer.from("2")),
        closing,
      ]),
      {},
      /more than 1 file/,
    ],
    [
      "a part without a name",
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data\r\n\r\nx\r\n--${boundary}--`),
      {},
      /no name/,
    ],
    [
      "headers without end",
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="a"${"x".repeat(20_000)}`),
      {},
      /headers are too long/,
    ],
  ];
  for (const [what, bad, options, message] of refusals) {
    it(`refuses ${what} with 400`, async () => {
      await assert.rejects(read(bad, 100, options), (error: unknown) => {
        assert.ok(error instanceof LibraryError);
        assert.equal(error.status, 400);
        assert.match(error.message, message);
        return true;
      });
    });
  }

  it("stops reading when the file's consumer fails, with its error", async () => {
    const big = Buffer.concat([filePart("content", "big.whl", randomBytes(1 << 20)), closing]);
    const failure = new LibraryError(413, "too big");
    await assert.rejects(
      readMultipartForm(chunks(big, 4096), boundary, limits, async (file) => {
        let seen = 0;
        for await (const chunk of file.body) {
          seen += (chunk as Buffer).length;
          if (seen > 100_000) {
            file.body.destroy();
            throw failure;
          }
        }
      }),
      (error) => error === failure,
    );
  });

  // Not a speed target but a complexity guard: a reader that copied and searched its whole
  // buffer per chunk took 38 s here (half a MiB, one byte a chunk), a linear one 2.5 s. The
  // reading never yields to timers, so a test timeout cannot catch it; the elapsed time can.
  it("reads a large field sent one byte at a time in linear work", async () => {
    const value = "v".repeat(512 * 1024);
    const body = Buffer.concat([field("description", value), field("name", "x"), closing]);
    const started = performance.now();
    const { fields } = await read(body, 1, {
      fieldBytes: 1024 * 1024,
      totalFieldBytes: 2 * 1024 * 1024,
    });
    assert.ok(performance.now() - started < 15_000, "quadratic reading");
    assert.equal(fields.get("description")?.[0], value);
    assert.deepEqual(fields.get("name"), ["x"]);
  });

  it("parses the boundary of a multipart Content-Type", () => {
    assert.equal(parseFormBoundary(`multipart/form-data; boundary=${boundary}`).value, boundary);
    assert.equal(
      parseFormBoundary('multipart/form-data; charset=utf-8; boundary="a b"').value,
      "a b",
    );
    assert.match(parseFormBoundary("application/json").error ?? "", /multipart/);
    assert.match(parseFormBoundary("multipart/form-data").error ?? "", /boundary/);
    assert.match(
      parseFormBoundary(`multipart/form-data; boundary=${"x".repeat(71)}`).error ?? "",
      /boundary/,
    );
  });
});
