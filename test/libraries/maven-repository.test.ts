import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { bootstrapOrganisation } from "../../src/app/index.ts";
import { holder } from "../support/iam-fixtures.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";
import { basic, hex, pom, rawRequest } from "./maven-support.ts";

/** The Maven repository through plain HTTP, request by request as `mvn deploy` makes them. */
for (const pair of registryPairs) {
  describe(`maven repository [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let repo: string;
    let owner: string;

    const put = (path: string, body: string | Buffer, auth = owner) =>
      fetch(`${repo}/${path}`, {
        method: "PUT",
        headers: auth ? { authorization: auth } : {},
        body,
      });
    const get = (path: string, auth = owner, method = "GET") =>
      fetch(`${repo}/${path}`, { method, headers: auth ? { authorization: auth } : {} });
    const text = async (path: string) => {
      const res = await get(path);
      assert.equal(res.status, 200, `GET ${path}: ${await res.clone().text()}`);
      return res.text();
    };
    /** Deploys like mvn: the file, then its checksums. */
    const deploy = async (path: string, body: string | Buffer) => {
      for (const [suffix, content] of [
        ["", body],
        [".sha1", hex("sha1", body)],
        [".md5", hex("md5", body)],
      ] as const) {
        const res = await put(`${path}${suffix}`, content);
        assert.equal(res.status, 201, `PUT ${path}${suffix}: ${await res.text()}`);
      }
    };
    const catalogue = (name: string) =>
      r.server.lading.store.db
        .selectFrom("library_artifacts")
        .selectAll()
        .where("name", "=", name)
        .where("ecosystem", "=", "java")
        .executeTakeFirst();

    before(async () => {
      r = await startRegistryServer(pair);
      repo = `${r.registryUrl}/java/acme`;
      owner = basic(r.ownerToken);
    });
    after(() => r.close());

    it("takes mvn deploy's uploads and serves each file, checksum and the metadata back", async () => {
      const jar = Buffer.from("PK\u0003\u0004 not really a jar");
      const pomText = pom(
        "com.example",
        "demo",
        "1.0",
        "  <name>Demo</name>\n  <description>A demo &amp; its &lt;library&gt;</description>\n",
      );
      const dir = "com/example/demo/1.0";
      await deploy(`${dir}/demo-1.0.jar`, jar);
      await deploy(`${dir}/demo-1.0.pom`, pomText);
      const uploaded = '<?xml version="1.0"?><metadata><versioning/></metadata>';
      await deploy("com/example/demo/maven-metadata.xml", uploaded);

      const res = await get(`${dir}/demo-1.0.jar`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "application/java-archive");
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), jar);
      const head = await get(`${dir}/demo-1.0.jar`, owner, "HEAD");
      assert.equal(head.status, 200);
      assert.equal(head.headers.get("content-length"), String(jar.length));
      assert.equal(head.headers.get("x-checksum-sha1"), hex("sha1", jar));
      assert.equal(await text(`${dir}/demo-1.0.pom`), pomText);
      for (const algorithm of ["sha1", "md5", "sha256", "sha512"]) {
        assert.equal(await text(`${dir}/demo-1.0.jar.${algorithm}`), hex(algorithm, jar));
        assert.equal(await text(`${dir}/demo-1.0.pom.${algorithm}`), hex(algorithm, pomText));
      }
      const metadata = await text("com/example/demo/maven-metadata.xml");
      assert.doesNotMatch(metadata, /<versioning\/>/, "the uploaded metadata is not served");
      assert.match(metadata, /<groupId>com\.example<\/groupId>/);
      assert.match(metadata, /<artifactId>demo<\/artifactId>/);
      assert.match(metadata, /<latest>1\.0<\/latest>\s*<release>1\.0<\/release>/);
      assert.match(metadata, /<lastUpdated>\d{14}<\/lastUpdated>/);
      assert.equal(await text("com/example/demo/maven-metadata.xml.sha1"), hex("sha1", metadata));

      const row = await catalogue("com.example:demo");
      assert.equal(row?.description, "A demo & its <library>", "the pom's description, decoded");
      assert.equal(row?.latest_version, "1.0");
      const files = await r.server.lading.store.db
        .selectFrom("library_files")
        .select("filename")
        .where("artifact_uid", "=", row?.uid ?? "")
        .orderBy("filename")
        .execute();
      assert.deepEqual(
        files.map((f) => f.filename),
        ["demo-1.0.jar", "demo-1.0.pom"],
      );
      const events = await r.server.lading.store.db
        .selectFrom("events")
        .select(["type", "data"])
        .where("subject", "=", row?.uid ?? "")
        .orderBy("seq")
        .execute();
      assert.deepEqual(
        events.map((e) => [
          e.type,
          (JSON.parse(e.data).body.files as { filename: string }[]).map((f) => f.filename),
        ]),
        [
          ["dev.lading.libraries.publish.v1", ["demo-1.0.jar"]],
          ["dev.lading.libraries.file.added.v1", ["demo-1.0.pom"]],
        ],
        "the version's publish, then the pom added to it",
      );
      assert.equal((await get(`${dir}/demo-1.0-sources.jar`)).status, 404);
      assert.equal((await get("com/example/nothing/maven-metadata.xml")).status, 404);
      assert.equal((await get("com/example/demo/2.0/demo-2.0.jar", owner, "HEAD")).status, 404);
    });

    it("lists versions in Maven's order, whatever order they were deployed in", async () => {
      const order = ["1.0-alpha-1", "1.0", "1.0.1", "1.10"];
      for (const version of ["1.10", "1.0", "1.0-alpha-1", "1.0.1"]) {
        await deploy(`org/acme/order/${version}/order-${version}.jar`, `jar ${version}`);
      }
      const metadata = await text("org/acme/order/maven-metadata.xml");
      const listed = [...metadata.matchAll(/<version>([^<]+)<\/version>/g)].map((m) => m[1]);
      assert.deepEqual(listed, order);
      assert.match(metadata, /<latest>1\.10<\/latest>\s*<release>1\.10<\/release>/);
      assert.equal((await catalogue("org.acme:order"))?.description, "");
    });

    it("refuses a second upload of a file, a wrong checksum and a SNAPSHOT", async () => {
      const dir = "org/acme/fixed/2.0";
      await deploy(`${dir}/fixed-2.0.jar`, "first");
      const again = await put(`${dir}/fixed-2.0.jar`, "second");
      assert.equal(again.status, 409);
      assert.match(await again.text(), /already published/);
      assert.equal(await text(`${dir}/fixed-2.0.jar`), "first");

      const wrong = await put(`${dir}/fixed-2.0.jar.sha1`, hex("sha1", "second"));
      assert.equal(wrong.status, 400);
      const message = await wrong.text();
      assert.ok(message.includes(hex("sha1", "first")) && message.includes(hex("sha1", "second")));
      const orphan = await put(`${dir}/fixed-2.0-sources.jar.sha1`, hex("sha1", "x"));
      assert.equal(orphan.status, 404);

      const headerMismatch = await fetch(`${repo}/${dir}/fixed-2.0-docs.jar`, {
        method: "PUT",
        headers: { authorization: owner, "x-checksum-sha1": hex("sha1", "other") },
        body: "docs",
      });
      assert.equal(headerMismatch.status, 400);
      assert.equal((await get(`${dir}/fixed-2.0-docs.jar`)).status, 404);

      const snapshot = await put("org/acme/snap/1.0-SNAPSHOT/snap-1.0-SNAPSHOT.jar", "s");
      assert.equal(snapshot.status, 400);
      assert.match(await snapshot.text(), /SNAPSHOT.*releases only/);
      assert.equal(await catalogue("org.acme:snap"), undefined);
    });

    it("refuses paths outside the layout and stores nothing for them", async () => {
      const headers = { authorization: owner };
      for (const path of [
        "/java/acme/com/evil/../../x/1.0/x-1.0.jar",
        "/java/acme/com/evil/%2e%2e/x/1.0/x-1.0.jar",
        "/java/acme/com/evil/%2E%2E/x/1.0/x-1.0.jar",
        "/java/acme/com%5Cevil/x/1.0/x-1.0.jar",
        "/java/acme/com/evil/x/1.0/..%2fx-1.0.jar",
        "/java/acme/com/evil/x/1.0/x-1.0%00.jar",
        "/java/acme/com//evil/x/1.0/x-1.0.jar",
        "/java/acme/com/evil/x/1.0/other-1.0.jar",
        "/java/acme/com/evil/x/1.0/x-1.1.jar",
        "/java/acme/com/evil/x/1.0/x-1.0",
        "/java/acme/x/1.0/x-1.0.jar",
        `/java/acme/${"g/".repeat(40)}x/1.0/x-1.0.jar`,
      ]) {
        const res = await rawRequest(r.registryUrl, "PUT", path, headers, "evil");
        assert.equal(res.status, 400, `${path}: ${res.body}`);
      }
      const rows = await r.server.lading.store.db
        .selectFrom("library_artifacts")
        .select("name")
        .where("name", "like", "%evil%")
        .execute();
      assert.deepEqual(rows, []);
      const res = await rawRequest(r.registryUrl, "GET", "/java/acme/com/../etc/passwd", headers);
      assert.equal(res.status, 404);
    });

    it("asks for credentials, hides acme from others and lets only publishers publish", async () => {
      const path = "org/acme/guarded/1.0/guarded-1.0.jar";
      await deploy(path, "guarded");

      const anonymous = await put("org/acme/guarded/1.1/guarded-1.1.jar", "x", "");
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.headers.get("www-authenticate"), 'Basic realm="Lading libraries"');
      assert.equal((await get(path, "")).status, 401);

      const rival = await bootstrapOrganisation(r.server.lading.store.db, `rival${pair.store}`);
      const stranger = basic(await r.server.token(rival.identityUid, { audience: r.host }));
      assert.equal((await get(path, stranger)).status, 404);
      assert.equal((await put("org/acme/guarded/1.2/guarded-1.2.jar", "x", stranger)).status, 404);

      const viewer = await holder(r.server, r.server.org.groupUid, ["libraries.java.list"]);
      const reader = basic(await r.server.token(viewer.uid, { audience: r.host }));
      assert.equal(await (await get(path, reader)).text(), "guarded");
      const denied = await put("org/acme/guarded/1.3/guarded-1.3.jar", "x", reader);
      assert.equal(denied.status, 403);
      assert.match(await denied.text(), /libraries\.java\.create/);
      const versions = [
        ...(await text("org/acme/guarded/maven-metadata.xml")).matchAll(/<version>/g),
      ];
      assert.equal(versions.length, 1, "no refused upload became a version");
    });

    it("serves the public organisation to anonymous readers", async () => {
      const publicOwner = basic(r.publicOrg.token);
      const url = `${r.registryUrl}/java/public/io/open/lib/3.1/lib-3.1.jar`;
      const res = await fetch(url, {
        method: "PUT",
        headers: { authorization: publicOwner },
        body: "open",
      });
      assert.equal(res.status, 201, await res.text());
      assert.equal(await (await fetch(url)).text(), "open");
      assert.equal((await fetch(url, { method: "PUT", body: "again" })).status, 401);
    });
  });
}
