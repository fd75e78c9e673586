import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
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

const pipAccept =
  "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html; q=0.1, text/html; q=0.01";

interface JsonPage {
  meta: { "api-version": string };
  name: string;
  versions: string[];
  files: {
    filename: string;
    url: string;
    hashes: { sha256: string };
    "requires-python"?: string;
    size: number;
    "upload-time": string;
  }[];
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** The Simple API's pages: formats, negotiation, names, caching, and the files it links. */
for (const pair of registryPairs) {
  describe(`the Python Simple API [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let owner: string;
    const base = () => `${r.registryUrl}/python/acme`;
    const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
      fetch(`${base()}${path}`, {
        method,
        redirect: "manual",
        headers: { authorization: owner, ...headers },
      });
    const upload = async (file: PythonFile, name: string, version: string, extra = {}) => {
      const answer = await twineUpload(
        `${base()}/`,
        owner,
        file,
        twineFields(file, name, version, extra),
      );
      assert.equal(answer.status, 200, answer.text);
    };
    const wheels = {
      old: buildWheel({ name: "Foo.Bar_baz", version: "1.0", requiresPython: ">=3.8,<4" }),
      next: buildWheel({ name: "Foo.Bar_baz", version: "1.10" }),
      pre: buildWheel({ name: "Foo.Bar_baz", version: "1.2rc1" }),
    };

    before(async () => {
      r = await startRegistryServer(pair);
      owner = basicToken(r.ownerToken);
      await upload(wheels.next, "Foo.Bar_baz", "1.10");
      await upload(wheels.old, "Foo.Bar_baz", "1.0", { requires_python: ">=3.8,<4" });
      await upload(wheels.pre, "Foo.Bar_baz", "1.2RC1");
    });
    after(() => r?.close());

    it("redirects names that are not in PEP 503 normal form", async () => {
      for (const path of ["/simple/Foo.Bar_baz/", "/simple/FOO-bar--baz", "/simple/foo-bar-baz"]) {
        const res = await get(path);
        assert.equal(res.status, 301, path);
        assert.equal(res.headers.get("location"), "/python/acme/simple/foo-bar-baz/");
      }
      assert.equal((await get("/simple")).headers.get("location"), "/python/acme/simple/");
    });

    it("answers pip in PEP 691 JSON with hashes, sizes, upload times and versions in order", async () => {
      const res = await get("/simple/foo-bar-baz/", { accept: pipAccept });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "application/vnd.pypi.simple.v1+json");
      // fetch, like pip, accepts gzip: the cached page goes out compressed.
      assert.equal(res.headers.get("content-encoding"), "gzip");
      const page = (await res.json()) as JsonPage;
      const identity = await get("/simple/foo-bar-baz/", {
        accept: pipAccept,
        "accept-encoding": "identity",
      });
      assert.equal(identity.headers.get("content-encoding"), null);
      assert.deepEqual(await identity.json(), page);
      assert.equal(page.meta["api-version"], "1.1");
      assert.equal(page.name, "foo-bar-baz");
      assert.deepEqual(page.versions, ["1.0", "1.2rc1", "1.10"]);
      const old = page.files.find((f) => f.filename === wheels.old.filename);
      assert.ok(old);
      assert.equal(old.hashes.sha256, sha256(wheels.old.bytes));
      assert.equal(old.size, wheels.old.bytes.length);
      assert.equal(old["requires-python"], ">=3.8,<4");
      assert.ok(!Number.isNaN(Date.parse(old["upload-time"])));
      assert.equal(
        page.files.find((f) => f.filename === wheels.next.filename)?.["requires-python"],
        undefined,
      );
      const file = await get(
        `/simple/foo-bar-baz/${old.url}`.replace("/simple/foo-bar-baz/../../", "/"),
      );
      assert.equal(file.status, 200);
      assert.ok(Buffer.from(await file.arrayBuffer()).equals(wheels.old.bytes));
    });

    it("answers browsers and old clients in PEP 503 HTML, escaping requires-python", async () => {
      for (const accept of ["text/html", "", "*/*", "application/vnd.pypi.simple.v1+html"]) {
        const res = await get("/simple/foo-bar-baz/", accept ? { accept } : {});
        assert.equal(res.status, 200, accept);
        const type = res.headers.get("content-type") ?? "";
        assert.ok(
          type.startsWith(accept.includes("vnd") ? accept : "text/html"),
          `${accept}: ${type}`,
        );
        const html = await res.text();
        assert.match(html, /<meta name="pypi:repository-version" content="1.1">/);
        const link = `<a href="../../files/foo-bar-baz/1.0/${wheels.old.filename}#sha256=${sha256(wheels.old.bytes)}" data-requires-python="&gt;=3.8,&lt;4">${wheels.old.filename}</a>`;
        assert.ok(html.includes(link), html);
      }
      const refused = await get("/simple/foo-bar-baz/", { accept: "application/json" });
      assert.equal(refused.status, 406);
      const zero = await get("/simple/foo-bar-baz/", { accept: "text/html;q=0, */*;q=0" });
      assert.equal(zero.status, 406);
    });

    it("lists the organisation's projects in both formats; unknown projects are 404", async () => {
      const json = await get("/simple/", { accept: pipAccept });
      assert.deepEqual(((await json.json()) as { projects: unknown }).projects, [
        { name: "Foo.Bar_baz" },
      ]);
      const html = await (await get("/simple/")).text();
      assert.ok(html.includes('<a href="foo-bar-baz/">Foo.Bar_baz</a>'), html);
      assert.equal((await get("/simple/nothing-here/")).status, 404);
      assert.equal((await get("/files/foo-bar-baz/9.9/nope.whl")).status, 404);
      // A real file under another version's path is not served.
      assert.equal((await get(`/files/foo-bar-baz/1.10/${wheels.old.filename}`)).status, 404);
      assert.equal((await get("/simple/", {}, "DELETE")).status, 405);
    });

    it("revalidates pages with ETags and sees a new file at once", async () => {
      const first = await get("/simple/foo-bar-baz/", { accept: pipAccept });
      const etag = first.headers.get("etag") ?? "";
      assert.ok(etag);
      assert.equal(first.headers.get("vary"), "Accept, Accept-Encoding, Authorization");
      const same = await get("/simple/foo-bar-baz/", { accept: pipAccept, "if-none-match": etag });
      assert.equal(same.status, 304);
      const html = await get("/simple/foo-bar-baz/", { "if-none-match": etag });
      assert.equal(html.status, 200, "the HTML page has its own ETag");
      // Adding a file to an existing version changes neither version count nor latest version.
      const sdist = await buildSdist("foo-bar-baz", "1.0");
      await upload(sdist, "Foo.Bar_baz", "1.0");
      const after = await get("/simple/foo-bar-baz/", { accept: pipAccept, "if-none-match": etag });
      assert.equal(after.status, 200);
      const page = (await after.json()) as JsonPage;
      assert.ok(page.files.some((f) => f.filename === sdist.filename));
    });

    it("streams a large file with its length, digest ETag and a long Cache-Control", async () => {
      const big = {
        filename: "big-1.0-py3-none-any.whl",
        bytes: zipArchive({
          "big/data.bin": randomBytes(6 * 1024 * 1024),
          "big-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: big\nVersion: 1.0\n\n",
        }),
      };
      await upload(big, "big", "1.0");
      const res = await get(`/files/big/1.0/${big.filename}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-length"), String(big.bytes.length));
      assert.equal(res.headers.get("etag"), `"sha256:${sha256(big.bytes)}"`);
      assert.match(res.headers.get("cache-control") ?? "", /max-age=31536000, immutable/);
      assert.ok(Buffer.from(await res.arrayBuffer()).equals(big.bytes));
      const head = await get(`/files/big/1.0/${big.filename}`, {}, "HEAD");
      assert.equal(head.headers.get("content-length"), String(big.bytes.length));
      const cached = await get(`/files/big/1.0/${big.filename}`, {
        "if-none-match": `"sha256:${sha256(big.bytes)}"`,
      });
      assert.equal(cached.status, 304);
    });
  });
}
