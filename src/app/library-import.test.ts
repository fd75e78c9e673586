import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import tar from "tar-stream";
import { checkDistribution } from "../doors/libraries/index.ts";
import { storeLibraryFile } from "../libraries/index.ts";
import { createFilesystemBlobStore } from "../store/blobs/index.ts";
import { isMavenBookkeeping } from "./library-import-maven.ts";
import { takesLatest } from "./library-import-npm.ts";
import { pythonFileIdentity, pythonFileKind } from "./library-import-python.ts";

describe("library import: file rules", () => {
  it("reads a project and version from wheel and sdist names, dashes in sdist names included", () => {
    assert.equal(pythonFileKind("a-1.0-py3-none-any.whl"), "wheel");
    assert.equal(pythonFileKind("A-1.0.ZIP"), "sdist");
    assert.equal(pythonFileKind("a-1.0.tar.bz2"), undefined);
    assert.deepEqual(pythonFileIdentity("Foo_Bar-1.0-py3-none-any.whl", "wheel").value, {
      kind: "wheel",
      name: "Foo_Bar",
      project: "foo-bar",
      version: "1.0",
      pythonVersion: "py3",
    });
    const sdist = pythonFileIdentity("zope-interface-5.0RC1.tar.gz", "sdist").value;
    assert.equal(sdist?.project, "zope-interface");
    assert.equal(sdist?.version, "5.0rc1");
    assert.match(
      pythonFileIdentity("noversion.tar.gz", "sdist").error ?? "",
      /not \{name\}-\{version\}/,
    );
    assert.match(pythonFileIdentity("a-1.0-any.whl", "wheel").error ?? "", /is not \{name\}/);
  });

  it("moves npm's latest to the highest release whatever the order", () => {
    const order = (versions: string[]) =>
      versions.reduce<string | undefined>(
        (latest, v) => (takesLatest(v, latest) ? v : latest),
        undefined,
      );
    assert.equal(order(["1.0.0", "2.0.0-beta.1", "1.5.0"]), "1.5.0");
    assert.equal(order(["2.0.0-beta.1", "1.5.0", "1.0.0"]), "1.5.0");
    assert.equal(order(["3.0.0-rc.1"]), "3.0.0-rc.1");
    assert.equal(takesLatest("1.0.0", "2.0.0"), false, "a higher tag is left alone");
  });

  it("ignores Maven checksums, metadata and local-repository bookkeeping", () => {
    for (const name of [
      "a-1.jar.sha1",
      "a-1.pom.md5",
      "maven-metadata.xml",
      "maven-metadata-central.xml",
      "_remote.repositories",
      "a-1.jar.lastUpdated",
    ]) {
      assert.equal(isMavenBookkeeping(name), true, name);
    }
    for (const name of ["a-1.jar", "a-1.pom", "a-1.jar.asc", "a-1-sources.jar"]) {
      assert.equal(isMavenBookkeeping(name), false, name);
    }
  });

  it("takes an sdist's display name and summary from its PKG-INFO when it names the project, and bounds its unpacking", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lading-sdist-"));
    try {
      const blobs = createFilesystemBlobStore({ dir });
      const sdist = async (name: string, padding = 0, maxUnpackedBytes = 1024 ** 3) => {
        const pack = tar.pack();
        pack.entry(
          { name: "x-1.0/PKG-INFO" },
          `Metadata-Version: 2.1\nName: ${name}\nVersion: 1.0\nSummary: Does X\n\nlong text\n`,
        );
        if (padding > 0) pack.entry({ name: "x-1.0/zeros" }, Buffer.alloc(padding));
        pack.finalize();
        const chunks: Buffer[] = [];
        for await (const chunk of pack) chunks.push(chunk as Buffer);
        const stored = await storeLibraryFile(
          blobs,
          Readable.from([gzipSync(Buffer.concat(chunks))]),
        );
        return checkDistribution(
          blobs,
          { ...stored, filename: "x-1.0.tar.gz", kind: "sdist" },
          "x-pkg",
          "1.0",
          maxUnpackedBytes,
        );
      };
      assert.deepEqual((await sdist("X.Pkg")).value, { name: "X.Pkg", summary: "Does X" });
      assert.deepEqual((await sdist("other")).value, {});
      // 2 MiB of zeros gzip to a few KiB: within 200 times that, but over a 1 MiB flat bound.
      const bomb = await sdist("X.Pkg", 2 * 1024 * 1024, 1024 * 1024);
      assert.match(
        bomb.error ?? "",
        /^x-1\.0\.tar\.gz: unpacks to more than 1048576 bytes from \d+ compressed bytes/,
      );
      assert.equal((await sdist("X.Pkg", 2 * 1024 * 1024, 4 * 1024 * 1024)).error, undefined);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
