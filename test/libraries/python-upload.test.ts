import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { builtInRoleUid } from "../../src/auth/built-in-roles.ts";
import { addIdentity, bind } from "../support/iam-fixtures.ts";
import {
  basicToken,
  buildSdist,
  buildWheel,
  type PythonFile,
  twineFields,
  twineUpload,
  zipArchive,
} from "../support/python-packages.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";

/** `twine upload` as twine sends it: what is accepted, what is refused, and that refusals store nothing. */
for (const pair of registryPairs) {
  describe(`twine uploads to the Python repository [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let owner: string;
    const root = () => `${r.registryUrl}/python/acme/`;
    const upload = (
      file: PythonFile,
      name: string,
      version: string,
      overrides: Record<string, string | undefined> = {},
      authorization = owner,
      url = root(),
    ) => twineUpload(url, authorization, file, twineFields(file, name, version, overrides));

    /** Asserts that project `name` has no rows and its page and file are not served. */
    const assertNothingStored = async (name: string, file?: PythonFile, version = "1.0") => {
      const db = r.server.lading.store.db;
      const artifacts = await db
        .selectFrom("library_artifacts")
        .select("uid")
        .where("name", "=", name)
        .execute();
      assert.deepEqual(artifacts, []);
      const files = file
        ? await db
            .selectFrom("library_files")
            .select("filename")
            .where("filename", "=", file.filename)
            .execute()
        : [];
      assert.deepEqual(files, []);
      const page = await fetch(`${root()}simple/${name}/`, { headers: { authorization: owner } });
      assert.equal(page.status, 404);
      if (file) {
        const get = await fetch(
          `${root()}files/${name}/${version}/${encodeURIComponent(file.filename)}`,
          {
            headers: { authorization: owner },
          },
        );
        assert.equal(get.status, 404);
      }
    };

    before(async () => {
      r = await startRegistryServer(pair);
      owner = basicToken(r.ownerToken);
    });
    after(() => r?.close());

    it("accepts a wheel, then an sdist of the same version, and lists both", async () => {
      const wheel = buildWheel({ name: "Two_Files", version: "1.0" });
      const first = await upload(wheel, "Two_Files", "1.0");
      assert.equal(first.status, 200, first.text);
      const sdist = await buildSdist("two-files", "1.0");
      const second = await upload(sdist, "Two_Files", "1.0", {}, owner, `${root()}legacy/`);
      assert.equal(second.status, 200, second.text);
      const page = await fetch(`${root()}simple/two-files/`, {
        headers: { authorization: owner, accept: "application/vnd.pypi.simple.v1+json" },
      });
      const json = (await page.json()) as {
        name: string;
        versions: string[];
        files: { filename: string }[];
      };
      assert.equal(json.name, "two-files");
      assert.deepEqual(json.versions, ["1.0"]);
      assert.deepEqual(
        json.files.map((f) => f.filename).sort(),
        [sdist.filename, wheel.filename].sort(),
      );
      const versions = await r.server.lading.store.db
        .selectFrom("library_versions")
        .select("version")
        .where("artifact_uid", "like", "python:%:two-files")
        .execute();
      assert.deepEqual(versions, [{ version: "1.0" }]);
    });

    it("refuses the same file twice with 409, keeping the first", async () => {
      const wheel = buildWheel({ name: "dup", version: "1.0" });
      assert.equal((await upload(wheel, "dup", "1.0")).status, 200);
      const again = await upload(wheel, "dup", "1.0");
      assert.equal(again.status, 409, again.text);
      assert.match(again.text, /already/);
      const get = await fetch(`${root()}files/dup/1.0/${wheel.filename}`, {
        headers: { authorization: owner },
      });
      assert.equal(get.status, 200);
      assert.ok(Buffer.from(await get.arrayBuffer()).equals(wheel.bytes));
    });

    it("refuses a wrong sha256 (declared before or after the file) and stores nothing", async () => {
      const wheel = buildWheel({ name: "badsum", version: "1.0" });
      const wrong = await upload(wheel, "badsum", "1.0", { sha256_digest: "ab".repeat(32) });
      assert.equal(wrong.status, 400);
      assert.match(wrong.text, /sha256/);
      // A client sending the digests after the file: checked once the form has ended.
      const form = new FormData();
      const { sha256_digest: _, ...fields } = twineFields(wheel, "badsum", "1.0");
      for (const [key, value] of Object.entries(fields)) if (value) form.append(key, value);
      form.append("content", new Blob([wheel.bytes]), wheel.filename);
      form.append("sha256_digest", "cd".repeat(32));
      const late = await fetch(root(), {
        method: "POST",
        body: form,
        headers: { authorization: owner },
      });
      assert.equal(late.status, 400);
      assert.match(await late.text(), /sha256_digest/);
      const md5 = await upload(wheel, "badsum", "1.0", { md5_digest: "0".repeat(32) });
      assert.equal(md5.status, 400);
      await assertNothingStored("badsum", wheel);
    });

    it("refuses file names that are paths", async () => {
      const wheel = buildWheel({ name: "evil", version: "1.0" });
      for (const filename of [
        "../evil-1.0-py3-none-any.whl",
        "x/evil-1.0-py3-none-any.whl",
        "..",
        "evil\\1.0.whl",
      ]) {
        const answer = await upload({ ...wheel, filename }, "evil", "1.0");
        assert.equal(answer.status, 400, filename);
        assert.match(answer.text, /path separator|is a path/, filename);
      }
      await assertNothingStored("evil");
    });

    it("refuses archives that are not what they claim", async () => {
      const notZip = {
        filename: "nozip-1.0-py3-none-any.whl",
        bytes: Buffer.from("not a zip file at all"),
      };
      const a = await upload(notZip, "nozip", "1.0");
      assert.equal(a.status, 400);
      assert.match(a.text, /not a zip/);
      await assertNothingStored("nozip", notZip);

      const liar = buildWheel({ name: "liar", version: "1.0", metadataName: "someone-else" });
      const b = await upload(liar, "liar", "1.0");
      assert.equal(b.status, 400);
      assert.match(b.text, /METADATA names project "someone-else"/);
      await assertNothingStored("liar", liar);

      const noMetadata = {
        filename: "bare-1.0-py3-none-any.whl",
        bytes: zipArchive({ "bare/__init__.py": "" }),
      };
      const c = await upload(noMetadata, "bare", "1.0");
      assert.equal(c.status, 400);
      assert.match(c.text, /METADATA/);

      const notGzip = { filename: "nogz-1.0.tar.gz", bytes: Buffer.from("plain text, not gzip") };
      const d = await upload(notGzip, "nogz", "1.0");
      assert.equal(d.status, 400);
      assert.match(d.text, /not a gzip tar/);
      await assertNothingStored("nogz", notGzip);
    });

    it("names the field that is missing or wrong", async () => {
      const wheel = buildWheel({ name: "fields", version: "1.0" });
      const cases: [Record<string, string | undefined>, RegExp][] = [
        [{ name: undefined }, /name is missing/],
        [{ version: undefined }, /version is missing/],
        [{ version: "one.two" }, /not a PEP 440 version/],
        [{ ":action": "submit" }, /:action must be file_upload/],
        [{ protocol_version: undefined }, /protocol_version/],
        [{ filetype: "bdist_egg" }, /filetype/],
        [{ filetype: "sdist" }, /sdist/],
        [{ version: "2.0" }, /not a file of version 2.0/],
        [{ name: "other" }, /not a file of project other/],
        [{ sha256_digest: undefined, md5_digest: undefined }, /sha256_digest/],
        [{ sha256_digest: "xyz" }, /sha256_digest is not 64 hexadecimal digits/],
        [{ name: "bad name!" }, /not a valid project name/],
      ];
      for (const [overrides, message] of cases) {
        const answer = await upload(wheel, "fields", "1.0", overrides);
        assert.equal(answer.status, 400, JSON.stringify(overrides));
        assert.match(answer.text, message);
      }
      const form = new FormData();
      for (const [key, value] of Object.entries(twineFields(wheel, "fields", "1.0")))
        if (value) form.append(key, value);
      const noFile = await fetch(root(), {
        method: "POST",
        body: form,
        headers: { authorization: owner },
      });
      assert.equal(noFile.status, 400);
      assert.match(await noFile.text(), /content is missing/);
      const json = await fetch(root(), {
        method: "POST",
        body: "{}",
        headers: { authorization: owner, "content-type": "application/json" },
      });
      assert.equal(json.status, 400);
      await assertNothingStored("fields", wheel);
    });

    it("refuses a truncated multipart body", async () => {
      const boundary = "----lading-test";
      const body = `--${boundary}\r\nContent-Disposition: form-data; name=":action"\r\n\r\nfile_upload\r\n--${boundary}\r\nContent-Disposition: form-data; name="content"; filename="cut-1.0-py3-none-any.whl"\r\n\r\nPK\u0003\u0004 and then nothing`;
      const res = await fetch(root(), {
        method: "POST",
        body,
        headers: {
          authorization: owner,
          "content-type": `multipart/form-data; boundary=${boundary}`,
        },
      });
      assert.equal(res.status, 400);
      assert.match(await res.text(), /malformed upload/);
    });

    it("answers a form of 100,000 parts with its 400, read by a client that sends it all first", async () => {
      // pip and twine (requests) write the whole body before they read: the refusal at part
      // 1001 must wait for them, and the connection then closes without a reset.
      const boundary = "lading-many-parts";
      const parts = Array.from(
        { length: 100_000 },
        (_, i) => `--${boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nx\r\n`,
      );
      const body = Buffer.from(`${parts.join("")}--${boundary}--\r\n`);
      const url = new URL(root());
      const socket = connect({ port: Number(url.port), host: url.hostname, allowHalfOpen: true });
      let failure: Error | undefined;
      socket.on("error", (error) => (failure = error));
      const received: Buffer[] = [];
      socket.on("data", (chunk: Buffer) => received.push(chunk));
      const closed = new Promise((resolve) => socket.once("close", resolve));
      await new Promise((resolve) => socket.once("connect", resolve));
      socket.write(
        `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${owner}\r\n` +
          `Content-Type: multipart/form-data; boundary=${boundary}\r\n` +
          `Content-Length: ${body.length}\r\n\r\n`,
      );
      for (let at = 0; at < body.length && !failure; at += 64 * 1024) {
        if (!socket.write(body.subarray(at, at + 64 * 1024))) {
          await new Promise((drained) => socket.once("drain", drained).once("close", drained));
        }
      }
      socket.end();
      await closed;
      assert.equal(failure, undefined, "the client was reset");
      const text = Buffer.concat(received).toString("utf8");
      const answer = {
        status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1]),
        text,
        connection: /\r\nconnection: (\S+)\r\n/i.exec(text)?.[1],
      };
      assert.equal(answer.status, 400, answer.text);
      assert.match(answer.text, /more than 1000 parts/);
      assert.equal(answer.connection, "close");
    });

    it("asks for credentials, hides acme from other organisations, refuses viewers", async () => {
      const wheel = buildWheel({ name: "guarded", version: "1.0" });
      const anonymous = await upload(wheel, "guarded", "1.0", {}, "");
      assert.equal(anonymous.status, 401);
      assert.match(anonymous.headers.get("www-authenticate") ?? "", /^Basic realm=/);
      const stranger = await upload(wheel, "guarded", "1.0", {}, basicToken(r.publicOrg.token));
      assert.equal(stranger.status, 404);
      const viewer = await addIdentity(r.server, r.server.org.groupUid);
      await bind(r.server, viewer.uid, r.server.org.groupUid, builtInRoleUid("viewer"));
      const viewerToken = basicToken(await r.server.token(viewer.uid, { audience: r.host }));
      const readOnly = await upload(wheel, "guarded", "1.0", {}, viewerToken);
      assert.equal(readOnly.status, 403);
      assert.match(readOnly.text, /libraries\.python\.create/);
      const garbage = await upload(wheel, "guarded", "1.0", {}, basicToken("not-a-token"));
      assert.equal(garbage.status, 401);
      await assertNothingStored("guarded", wheel);
      // The viewer reads what the owner publishes.
      assert.equal((await upload(wheel, "guarded", "1.0")).status, 200);
      const page = await fetch(`${root()}simple/guarded/`, {
        headers: { authorization: viewerToken },
      });
      assert.equal(page.status, 200);
      const hidden = await fetch(`${root()}simple/guarded/`, {
        headers: { authorization: basicToken(r.publicOrg.token) },
      });
      assert.equal(hidden.status, 404);
    });
  });
}

/** --libraries-max-file-size: a larger upload is refused while it streams, and stores nothing. */
for (const pair of registryPairs) {
  describe(`the library upload size limit [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    before(async () => {
      r = await startRegistryServer(pair, { librariesMaxFileSize: "64KiB" });
    });
    after(() => r?.close());

    it("refuses a file over the limit with 413, and one under it is taken", async () => {
      const owner = basicToken(r.ownerToken);
      const url = `${r.registryUrl}/python/acme/`;
      const big: PythonFile = {
        filename: "big_one-1.0-py3-none-any.whl",
        // Random, so that the archive's compression cannot bring it under the limit.
        bytes: zipArchive({ "big_one/data.bin": randomBytes(150 * 1024).toString("base64") }),
      };
      const refused = await twineUpload(url, owner, big, twineFields(big, "big-one", "1.0"));
      assert.equal(refused.status, 413, refused.text);
      assert.match(refused.text, /larger than 65536 bytes/);
      const rows = await r.server.lading.store.db
        .selectFrom("library_artifacts")
        .select("uid")
        .where("name", "=", "big-one")
        .execute();
      assert.deepEqual(rows, []);
      const small = buildWheel({ name: "small-one", version: "1.0" });
      const taken = await twineUpload(url, owner, small, twineFields(small, "small-one", "1.0"));
      assert.equal(taken.status, 200, taken.text);
    });
  });
}
