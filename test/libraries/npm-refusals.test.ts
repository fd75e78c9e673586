import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { get as httpGet, type IncomingHttpHeaders, request } from "node:http";
import { after, before, describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import { gzipTarBomb } from "../support/gzip-bombs.ts";
import { holder } from "../support/iam-fixtures.ts";
import {
  type PublishDocument,
  packageTarball,
  packTarball,
  publishDocument,
} from "../support/npm-packages.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";

/** What the packument tests read of a packument. */
interface PackumentJson {
  description?: string;
  "dist-tags": Record<string, string>;
  time?: Record<string, string>;
  versions: Record<
    string,
    {
      _id?: string;
      dist: { tarball: string; shasum: string; integrity: string; fileCount?: number };
    }
  >;
}

/** A GET through node:http, which (unlike fetch) leaves a gzip body as it came. */
function rawGet(url: string, headers: Record<string, string>) {
  return new Promise<{ headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    httpGet(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    }).on("error", reject);
  });
}

/** The same document with `_attachments` first: the tarball arrives before its manifest. */
const attachmentsFirst = (doc: PublishDocument) =>
  Object.assign({ _attachments: doc._attachments }, doc) as PublishDocument;

/** What npm cannot send: malformed and hostile publishes, other callers, packument forms. */
for (const pair of registryPairs) {
  describe(`npm registry refusals [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let viewerToken: string;
    const base = () => `${r.registryUrl}/javascript/acme`;
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

    const put = async (name: string, doc: unknown, token = r.ownerToken) => {
      const res = await fetch(`${base()}/${name.replace("/", "%2f")}`, {
        method: "PUT",
        headers: { ...bearer(token), "content-type": "application/json" },
        body: typeof doc === "string" ? doc : JSON.stringify(doc),
      });
      return { status: res.status, body: (await res.json()) as { error?: string } };
    };
    const get = (path: string, headers: Record<string, string> = bearer(r.ownerToken)) =>
      fetch(`${base()}${path}`, { headers });

    /** Nothing of `name@version` is visible: no packument (or one without it), no tarball, no rows. */
    async function assertInvisible(name: string, version: string) {
      const doc = await get(`/${name.replace("/", "%2f")}`);
      if (doc.status === 200) {
        const body = (await doc.json()) as { versions: Record<string, unknown> };
        assert.equal(body.versions[version], undefined);
      } else {
        assert.equal(doc.status, 404);
        await doc.body?.cancel();
      }
      const file = `${name.slice(name.indexOf("/") + 1)}-${version}.tgz`;
      const tgz = await get(`/${name}/-/${file}`);
      assert.equal(tgz.status, 404);
      await tgz.body?.cancel();
      const rows = await r.server.lading.store.db
        .selectFrom("library_versions")
        .select("uid")
        .where("version", "=", version)
        .where("uid", "like", `%:${name.replace("/", "~")}@%`)
        .execute();
      assert.deepEqual(rows, []);
    }

    async function refused(
      name: string,
      version: string,
      doc: PublishDocument | string,
      status: number,
      message: RegExp,
    ) {
      const res = await put(name, doc);
      assert.equal(res.status, status, JSON.stringify(res.body));
      assert.match(res.body.error ?? "", message);
      await assertInvisible(name, version);
    }

    before(async () => {
      r = await startRegistryServer(pair);
      const viewer = await holder(r.server, r.server.org.groupUid, ["libraries.javascript.list"]);
      viewerToken = await r.server.token(viewer.uid, { audience: r.host });
      const ok = await put(
        "base",
        publishDocument("base", "1.0.0", await packageTarball("base", "1.0.0")),
      );
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
    });
    after(() => r?.close());

    it("refuses bad base64, escapes in the data and a truncated group", async () => {
      const tgz = await packageTarball("bad64", "1.0.0");
      const doc = publishDocument("bad64", "1.0.0", tgz, (d) => {
        d._attachments["bad64-1.0.0.tgz"].data = `!!${tgz.toString("base64")}`;
      });
      await refused("bad64", "1.0.0", doc, 400, /not base64/);
      const text = JSON.stringify(publishDocument("bad64", "1.0.0", tgz)).replace(
        tgz.toString("base64"),
        `${tgz.toString("base64").slice(0, 8)}\\u0041${tgz.toString("base64").slice(9)}`,
      );
      await refused("bad64", "1.0.0", text, 400, /not base64/);
      const short = publishDocument("bad64", "1.0.0", tgz, (d) => {
        d._attachments["bad64-1.0.0.tgz"].data = tgz
          .toString("base64")
          .replace(/=+$/, "")
          .slice(0, -1);
      });
      await refused("bad64", "1.0.0", short, 400, /not base64|multiple of 4/);
    });

    it("refuses a tarball that is not a gzip tar, or has no package.json", async () => {
      const plain = Buffer.from("just some text, not a tarball");
      await refused(
        "notgz",
        "1.0.0",
        publishDocument("notgz", "1.0.0", plain),
        400,
        /not a gzip tar/,
      );
      const empty = await packTarball({ "README.md": "no manifest" });
      await refused(
        "notgz",
        "1.0.0",
        publishDocument("notgz", "1.0.0", empty),
        400,
        /package\.json/,
      );
    });

    it("refuses a tarball whose package.json names another package or version", async () => {
      const other = await packageTarball("someone-else", "1.0.0");
      await refused("mine", "1.0.0", publishDocument("mine", "1.0.0", other), 400, /someone-else/);
      const older = await packageTarball("mine", "0.9.0");
      await refused("mine", "1.0.0", publishDocument("mine", "1.0.0", older), 400, /0\.9\.0/);
    });

    it("refuses mismatched integrity, shasum and length", async () => {
      const tgz = await packageTarball("sums", "1.0.0");
      const wrong = await packageTarball("sums", "1.0.0", { extra: true });
      const integrity = publishDocument("sums", "1.0.0", tgz, (d) => {
        d.versions["1.0.0"].dist = publishDocument("sums", "1.0.0", wrong).versions["1.0.0"].dist;
      });
      await refused("sums", "1.0.0", integrity, 400, /sha1|sha512|does not match/);
      // The attachment before the manifest: the digests are checked after storing, still refused.
      const late = publishDocument("sums", "1.0.0", tgz, (d) => {
        d.versions["1.0.0"].dist.integrity = `sha512-${Buffer.alloc(64).toString("base64")}`;
        delete d.versions["1.0.0"].dist.shasum;
      });
      const reordered = attachmentsFirst(late);
      await refused("sums", "1.0.0", reordered, 400, /does not match|sha512/);
      const length = publishDocument("sums", "1.0.0", tgz, (d) => {
        d._attachments["sums-1.0.0.tgz"].length = tgz.length + 1;
      });
      await refused("sums", "1.0.0", length, 400, /bytes, not the declared/);
    });

    it("refuses two versions, two attachments, a name unlike the URL and an invalid version", async () => {
      const tgz = await packageTarball("two", "1.0.0");
      const two = publishDocument("two", "1.0.0", tgz, (d) => {
        d.versions["1.0.1"] = { ...d.versions["1.0.0"], version: "1.0.1" };
      });
      await refused("two", "1.0.0", two, 400, /exactly one version/);
      const attachments = publishDocument("two", "1.0.0", tgz, (d) => {
        d._attachments["two-1.0.1.tgz"] = d._attachments["two-1.0.0.tgz"];
      });
      await refused("two", "1.0.0", attachments, 400, /exactly one attachment/);
      await refused(
        "other",
        "1.0.0",
        publishDocument("two", "1.0.0", tgz),
        400,
        /names two@1\.0\.0, not other@1\.0\.0/,
      );
      const bad = await packageTarball("two", "1.0");
      await refused(
        "two",
        "1.0",
        publishDocument("two", "1.0", bad),
        400,
        /not a semantic version/,
      );
    });

    it("refuses a published version with 409 when the tarball comes before its manifest", async () => {
      const again = publishDocument("base", "1.0.0", await packageTarball("base", "1.0.0"));
      const res = await put("base", attachmentsFirst(again));
      assert.equal(res.status, 409, JSON.stringify(res.body));
      assert.match(
        res.body.error ?? "",
        /cannot publish over the previously published version 1\.0\.0/,
      );
      const files = await r.server.lading.store.db
        .selectFrom("library_files")
        .select("filename")
        .where("filename", "=", "base-1.0.0.tgz")
        .execute();
      assert.equal(files.length, 1, "the published file, not a second one");
    });

    it("refuses path traversal in the attachment name, wherever the attachment comes", async () => {
      const tgz = await packageTarball("trav", "1.0.0");
      const rename = (d: PublishDocument) => {
        d._attachments = { "../../trav-1.0.0.tgz": d._attachments["trav-1.0.0.tgz"] };
      };
      await refused(
        "trav",
        "1.0.0",
        publishDocument("trav", "1.0.0", tgz, rename),
        400,
        /attachment name/,
      );
      const first = publishDocument("trav", "1.0.0", tgz, rename);
      await refused("trav", "1.0.0", attachmentsFirst(first), 400, /attachment name/);
      const other = publishDocument("trav", "1.0.0", tgz, (d) => {
        d._attachments = { "evil.tgz": d._attachments["trav-1.0.0.tgz"] };
      });
      await refused("trav", "1.0.0", other, 400, /must be named trav-1\.0\.0\.tgz/);
    });

    it("refuses a gzip bomb (4 MB unpacking to 4 GiB) with 400 after a small decompression budget", async () => {
      const packageJson = JSON.stringify({ name: "bomb", version: "1.0.0" });
      const bomb = gzipTarBomb(4096, { "package/package.json": packageJson }, "package/zeros");
      const body = JSON.stringify(publishDocument("bomb", "1.0.0", bomb));
      const cpu = process.cpuUsage();
      const start = performance.now();
      const res = await put("bomb", body);
      const seconds = (performance.now() - start) / 1000;
      const used = process.cpuUsage(cpu);
      const cpuSeconds = (used.user + used.system) / 1e6;
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.match(
        res.body.error ?? "",
        /^the attachment unpacks to more than 67108864 bytes from \d+ compressed bytes/,
      );
      // Unpacking all 4 GiB took 14.8 CPU-seconds; the budget stops at 64 MiB (about 0.3 s).
      // Loose bounds for a loaded machine, and the client's own work counts too.
      assert.ok(cpuSeconds < 4, `${cpuSeconds.toFixed(2)} CPU-seconds`);
      assert.ok(seconds < 15, `${seconds.toFixed(1)} s`);
      await assertInvisible("bomb", "1.0.0");
    });

    it("refuses deep nesting and bodies over the limits with 413", async () => {
      const tgz = await packageTarball("deep", "1.0.0");
      const deep = publishDocument("deep", "1.0.0", tgz, (d) => {
        let nested: unknown = "bottom";
        for (let i = 0; i < 40; i++) nested = { n: nested };
        d.versions["1.0.0"].nested = nested;
      });
      await refused("deep", "1.0.0", deep, 400, /nests deeper/);
      const huge = publishDocument("huge", "1.0.0", await packageTarball("huge", "1.0.0"), (d) => {
        d.versions["1.0.0"].readme = "x".repeat(17 * 1024 * 1024);
      });
      await refused("huge", "1.0.0", huge, 413, /exceeds/);
      // A declared length past the limit is refused before the body is read.
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${base()}/huge`, {
          method: "PUT",
          headers: {
            ...bearer(r.ownerToken),
            "content-type": "application/json",
            "content-length": String(4 * 1024 ** 3),
          },
        });
        req.on("response", (res) => {
          let body = "";
          res.on("data", (c) => (body += c));
          res.on("end", () => {
            resolve({ status: res.statusCode ?? 0, body });
            req.destroy();
          });
        });
        req.on("error", reject);
        req.write("{");
      });
      assert.equal(answer.status, 413);
      assert.match(answer.body, /exceeds/);
      await assertInvisible("huge", "1.0.0");
    });

    it("keeps other organisations, anonymous callers and viewers from publishing", async () => {
      const doc = publishDocument("guarded", "1.0.0", await packageTarball("guarded", "1.0.0"));
      const foreign = await put("guarded", doc, r.publicOrg.token);
      assert.equal(foreign.status, 404);
      const foreignRead = await get("/base", bearer(r.publicOrg.token));
      assert.equal(foreignRead.status, 404);
      await foreignRead.body?.cancel();
      const anonymous = await get("/base", {});
      assert.equal(anonymous.status, 401);
      assert.match(anonymous.headers.get("www-authenticate") ?? "", /^Basic/);
      await anonymous.body?.cancel();
      const viewer = await put("guarded", doc, viewerToken);
      assert.equal(viewer.status, 403);
      assert.match(viewer.body.error ?? "", /libraries\.javascript\.create/);
      // The viewer reads, with Bearer and with Basic `_token` (npm's `_auth`).
      const basic = `Basic ${Buffer.from(`_token:${viewerToken}`).toString("base64")}`;
      for (const authorization of [`Bearer ${viewerToken}`, basic]) {
        const read = await get("/base", { authorization });
        assert.equal(read.status, 200);
        await read.body?.cancel();
      }
      const tagged = await fetch(`${base()}/-/package/base/dist-tags/beta`, {
        method: "PUT",
        headers: { ...bearer(viewerToken), "content-type": "application/json" },
        body: '"1.0.0"',
      });
      assert.equal(tagged.status, 403);
      await tagged.body?.cancel();
      await assertInvisible("guarded", "1.0.0");
    });

    it("deprecates only published versions of a well-formed document, never unpublishing", async () => {
      const v2 = publishDocument("olden", "2.0.0", await packageTarball("olden", "2.0.0"));
      assert.equal((await put("olden", v2)).status, 201);
      // Published with a deprecated field of its own: it shows until a deprecation is set.
      const v1 = publishDocument("olden", "1.0.0", await packageTarball("olden", "1.0.0"), (d) => {
        d.versions["1.0.0"].deprecated = "from the manifest";
        d["dist-tags"] = { old: "1.0.0" };
      });
      assert.equal((await put("olden", v1)).status, 201);
      const shown = async () => {
        const doc = (await (await get("/olden")).json()) as {
          versions: Record<string, { deprecated?: string }>;
        };
        return Object.fromEntries(
          Object.entries(doc.versions).map(([v, m]) => [v, m.deprecated ?? null]),
        );
      };
      assert.deepEqual(await shown(), { "1.0.0": "from the manifest", "2.0.0": null });
      const deprecate = (versions: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
        put("olden", { _id: "olden", name: "olden", versions, ...extra });
      for (const [body, status, message] of [
        [{ "3.0.0": { deprecated: "x" } }, 404, /olden@3\.0\.0 is not published/],
        [{ "2.0.0": { deprecated: 42 } }, 400, /deprecated must be a string/],
        [{ "2.0.0": "x" }, 400, /is not an object/],
        [{ "2.0.0": { deprecated: "x".repeat(1025) } }, 400, /longer than 1024 characters/],
        [{}, 400, /no tarball attachment and no versions/],
      ] as const) {
        const res = await deprecate(body);
        assert.equal(res.status, status, JSON.stringify(res.body));
        assert.match(res.body.error ?? "", message);
      }
      const named = await put("olden", {
        name: "other",
        versions: { "2.0.0": { deprecated: "x" } },
      });
      assert.equal(named.status, 400);
      // Nothing of a refused document changed anything, even its valid parts.
      const mixed = await deprecate({ "2.0.0": { deprecated: "x" }, "9.9.9": { deprecated: "x" } });
      assert.equal(mixed.status, 404);
      assert.deepEqual(await shown(), { "1.0.0": "from the manifest", "2.0.0": null });
      // Only `deprecated` is read: a document without 1.0.0 and with other tags and a new
      // description neither unpublishes nor retags nor rewrites anything.
      const ok = await deprecate(
        { "2.0.0": { deprecated: "use 3" } },
        { "dist-tags": { latest: "2.0.0" }, description: "rewritten" },
      );
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.deepEqual(await shown(), { "1.0.0": "from the manifest", "2.0.0": "use 3" });
      const full = (await (await get("/olden")).json()) as PackumentJson;
      assert.deepEqual(full["dist-tags"], { latest: "2.0.0", old: "1.0.0" });
      assert.notEqual(full.description, "rewritten");
      // Lifting the manifest's own deprecation with "".
      assert.equal((await deprecate({ "1.0.0": { deprecated: "" } })).status, 200);
      assert.deepEqual(await shown(), { "1.0.0": null, "2.0.0": "use 3" });
      // A viewer may not deprecate; another organisation does not see the package.
      const viewer = await put(
        "olden",
        { name: "olden", versions: { "2.0.0": { deprecated: "" } } },
        viewerToken,
      );
      assert.equal(viewer.status, 403);
      const foreign = await put(
        "olden",
        { name: "olden", versions: { "2.0.0": { deprecated: "" } } },
        r.publicOrg.token,
      );
      assert.equal(foreign.status, 404);
      assert.deepEqual(await shown(), { "1.0.0": null, "2.0.0": "use 3" });
    });

    it("streams a 24 MiB tarball through publish and download", async () => {
      const random = randomBytes(24 * 1024 * 1024).toString("base64");
      const tgz = await packTarball({
        "package.json": JSON.stringify({ name: "large", version: "1.0.0" }),
        "blob.txt": random,
      });
      const ok = await put("large", publishDocument("large", "1.0.0", tgz));
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      const head = await fetch(`${base()}/large/-/large-1.0.0.tgz`, {
        method: "HEAD",
        headers: bearer(r.ownerToken),
      });
      assert.equal(head.headers.get("content-length"), String(tgz.length));
      const got = Buffer.from(await (await get("/large/-/large-1.0.0.tgz")).arrayBuffer());
      assert.ok(got.equals(tgz));
    });

    it("serves a scoped package under both spellings, with its tarball and dist-tags", async () => {
      const tgz = await packageTarball("@acme/scoped", "1.0.0");
      const ok = await put("@acme/scoped", publishDocument("@acme/scoped", "1.0.0", tgz));
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      for (const path of ["/@acme%2fscoped", "/@acme%2Fscoped", "/@acme/scoped"]) {
        const doc = (await (await get(path)).json()) as PackumentJson;
        assert.equal(
          doc.versions["1.0.0"].dist.tarball,
          `${base()}/@acme/scoped/-/scoped-1.0.0.tgz`,
        );
      }
      const file = await get("/@acme/scoped/-/scoped-1.0.0.tgz");
      assert.ok(Buffer.from(await file.arrayBuffer()).equals(tgz));
      const tags = await get("/-/package/@acme%2fscoped/dist-tags");
      assert.deepEqual(await tags.json(), { latest: "1.0.0" });
    });

    it("refuses a manifest over 256 KiB", async () => {
      const tgz = await packageTarball("wide", "1.0.0");
      const wide = publishDocument("wide", "1.0.0", tgz, (d) => {
        d.versions["1.0.0"].keywords = Array.from({ length: 30_000 }, (_, i) => `keyword-${i}`);
      });
      await refused("wide", "1.0.0", wide, 413, /manifest/);
    });

    it("serves the abbreviated packument to installers and the full one otherwise", async () => {
      const abbreviated = await get("/base", {
        ...bearer(r.ownerToken),
        accept: "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*",
      });
      assert.equal(abbreviated.headers.get("content-type"), "application/vnd.npm.install-v1+json");
      const short = (await abbreviated.json()) as PackumentJson;
      assert.deepEqual(Object.keys(short).sort(), ["dist-tags", "modified", "name", "versions"]);
      assert.deepEqual(Object.keys(short.versions["1.0.0"]).sort(), ["dist", "name", "version"]);
      const full = await get("/base");
      assert.equal(full.headers.get("content-type"), "application/json");
      const long = (await full.json()) as PackumentJson;
      assert.equal(long.description, "test package");
      assert.equal(long.versions["1.0.0"]._id, "base@1.0.0");
      assert.equal(long.time?.["1.0.0"], long.time?.created);
      const head = await fetch(`${base()}/base`, { method: "HEAD", headers: bearer(r.ownerToken) });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get("etag"), full.headers.get("etag"));
      const dist = long.versions["1.0.0"].dist;
      assert.deepEqual(short.versions["1.0.0"].dist, dist);
      assert.equal(dist.tarball, `${base()}/base/-/base-1.0.0.tgz`);
      assert.equal(dist.fileCount, 2);
      const tgz = await get("/base/-/base-1.0.0.tgz");
      assert.equal(tgz.status, 200);
      const bytes = Buffer.from(await tgz.arrayBuffer());
      assert.equal(createHash("sha1").update(bytes).digest("hex"), dist.shasum);
      assert.equal(`sha512-${createHash("sha512").update(bytes).digest("base64")}`, dist.integrity);
      // npm asks with gzip,deflate: the same document, compressed.
      const plain = await rawGet(`${base()}/base`, {
        ...bearer(r.ownerToken),
        "accept-encoding": "identity",
      });
      const zipped = await rawGet(`${base()}/base`, {
        ...bearer(r.ownerToken),
        "accept-encoding": "gzip,deflate",
      });
      assert.equal(plain.headers["content-encoding"], undefined);
      assert.equal(zipped.headers["content-encoding"], "gzip");
      assert.deepEqual(gunzipSync(zipped.body), plain.body);
      assert.notEqual(zipped.headers.etag, plain.headers.etag);
      const scoped = await get("/@acme%2fnothing");
      assert.equal(scoped.status, 404);
      assert.deepEqual(await scoped.json(), { error: "package @acme/nothing not found" });
    });

    it("answers 304 to If-None-Match and a new tag after any replica changes the row", async () => {
      const first = await get("/base");
      const etag = first.headers.get("etag") ?? "";
      await first.body?.cancel();
      const again = await get("/base", { ...bearer(r.ownerToken), "if-none-match": etag });
      assert.equal(again.status, 304);
      // Another replica's dist-tag change, written straight to the shared store.
      await r.server.lading.store.db
        .updateTable("library_artifacts")
        .set({
          dist_tags: JSON.stringify({ latest: "1.0.0", next: "1.0.0" }),
          update_time: new Date().toISOString(),
        })
        .where("name", "=", "base")
        .execute();
      const moved = await get("/base", { ...bearer(r.ownerToken), "if-none-match": etag });
      assert.equal(moved.status, 200);
      assert.notEqual(moved.headers.get("etag"), etag);
      assert.equal(((await moved.json()) as PackumentJson)["dist-tags"].next, "1.0.0");
    });
  });
}

/** --libraries-max-file-size on npm publish: refused with 413 as the tarball streams, nothing kept. */
for (const pair of registryPairs) {
  describe(`npm publish over the file size limit [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    before(async () => {
      r = await startRegistryServer(pair, { librariesMaxFileSize: "64KiB" });
    });
    after(() => r?.close());

    it("answers 413 naming the limit, and publishes nothing", async () => {
      // Random content, so that gzip cannot bring the tarball under the limit.
      const tgz = await packTarball({
        "package.json": JSON.stringify({ name: "too-big", version: "1.0.0" }),
        "data.txt": randomBytes(200 * 1024).toString("base64"),
      });
      assert.ok(tgz.length > 64 * 1024, `the tarball is ${tgz.length} bytes`);
      const res = await fetch(`${r.registryUrl}/javascript/acme/too-big`, {
        method: "PUT",
        headers: { authorization: `Bearer ${r.ownerToken}`, "content-type": "application/json" },
        body: JSON.stringify(publishDocument("too-big", "1.0.0", tgz)),
      });
      const body = (await res.json()) as { error?: string };
      assert.equal(res.status, 413, JSON.stringify(body));
      assert.match(body.error ?? "", /larger than 65536 bytes/);
      const rows = await r.server.lading.store.db
        .selectFrom("library_artifacts")
        .select("uid")
        .where("name", "=", "too-big")
        .execute();
      assert.deepEqual(rows, []);
    });
  });
}
