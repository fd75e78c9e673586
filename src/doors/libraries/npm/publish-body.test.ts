import assert from "node:assert/strict";
import { test } from "node:test";
import { LibraryError } from "../../../libraries/index.ts";
import { type PublishBodyOptions, readPublishBody } from "./publish-body.ts";

/** Reads `text` split into `pieces`; returns the document, the data per attachment, versions. */
async function read(pieces: Buffer[], options: Partial<PublishBodyOptions> = {}) {
  const data = new Map<string, string>();
  let versions: unknown;
  async function* body() {
    yield* pieces;
  }
  const doc = await readPublishBody(body(), {
    maxBodyBytes: 1 << 20,
    maxDocumentBytes: 1 << 16,
    maxDepth: 8,
    onVersions(value) {
      versions = value;
    },
    async openAttachment(name) {
      data.set(name, "");
      return {
        async write(text) {
          data.set(name, (data.get(name) ?? "") + text.toString("latin1"));
        },
        async end() {},
      };
    },
    ...options,
  });
  return { doc, data: Object.fromEntries(data), versions };
}

const sample = {
  _id: 'a"b',
  'n\\a"me': 'x\\"y\u00e9\ud83d\ude00',
  versions: { "1.0.0": { name: "p", list: [1, { data: "not an attachment" }], 'q"': null } },
  "dist-tags": { latest: "1.0.0" },
  _attachments: { "p-1.0.0.tgz": { content_type: "x", data: "QUJDRA==", length: 4 } },
  after: [true, false, -1.5e3],
};

test("every split of the body gives the same document, data and versions", async () => {
  const text = Buffer.from(JSON.stringify(sample, null, 1));
  const expected = structuredClone(sample) as Record<string, unknown>;
  (expected._attachments as Record<string, { data: string }>)["p-1.0.0.tgz"].data = "";
  for (let at = 0; at <= text.length; at++) {
    const got = await read([text.subarray(0, at), text.subarray(at)]);
    assert.deepEqual(got.doc, expected, `split at ${at}`);
    assert.deepEqual(got.data, { "p-1.0.0.tgz": "QUJDRA==" });
    assert.deepEqual(got.versions, sample.versions);
  }
  const bytes = [...text].map((b) => Buffer.from([b]));
  assert.deepEqual((await read(bytes)).doc, expected);
});

test("refuses what is not one JSON object, escapes in data, depth and size", async () => {
  const refusal = async (text: string, pattern: RegExp, options = {}) => {
    await assert.rejects(read([Buffer.from(text)], options), (error: unknown) => {
      assert.ok(error instanceof LibraryError, String(error));
      assert.match(error.message, pattern);
      return true;
    });
  };
  await refusal("[1]", /not a JSON object/);
  await refusal("{} {}", /not a JSON object/);
  await refusal('{"a": 1', /ends before/);
  await refusal('{"a": tru}', /not JSON/);
  await refusal('{"_attachments": {"f": {"data": "QU\\u0042"}}}', /escape/);
  await refusal('{"a": [[[[[[[[[]]]]]]]]]}', /nests deeper/);
  await refusal(`{"a": "${"x".repeat(100)}"}`, /exceeds 64/, { maxDocumentBytes: 64 });
  await refusal(`{"a": "${"x".repeat(100)}"}`, /exceeds 50/, { maxBodyBytes: 50 });
});
