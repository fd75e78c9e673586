import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { describe } from "../support/counted-describe.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";
import {
  dependencyPlugin,
  deployPlugin,
  mvn,
  mvnSettings,
  pom,
  mvnSkip as skip,
} from "./maven-support.ts";

/** One local repository for every run: Maven copies its plugins from Debian's only once. */
const localRepo = await mkdtemp(join(tmpdir(), "lading-m2-"));
after(() => rm(localRepo, { recursive: true, force: true }));

/** The real `mvn`: deploy:deploy-file into Lading, dependency:get back out of it. */
for (const pair of registryPairs) {
  describe(`mvn against the Maven repository [${pair.store}, ${pair.blobs}]`, { skip }, () => {
    let r: RegistryTestServer;
    let dir: string;

    before(async () => {
      r = await startRegistryServer(pair);
      dir = await mkdtemp(join(tmpdir(), "lading-mvn-"));
    });
    after(async () => {
      await r.close();
      await rm(dir, { recursive: true, force: true });
    });

    it("deploys a jar and its pom with mvn deploy:deploy-file and fetches them with dependency:get", async () => {
      const repo = `${r.registryUrl}/java/acme/`;
      const jar = Buffer.from("PK\u0003\u0004 a jar built by nobody");
      const pomText = pom(
        "com.example.mvn",
        "tool",
        "2.5.1",
        "  <description>A tool</description>\n",
      );
      await writeFile(join(dir, "tool.jar"), jar);
      await writeFile(join(dir, "tool.pom"), pomText);
      const publisher = join(dir, "publisher.xml");
      await writeFile(publisher, mvnSettings(localRepo, "_token", r.ownerToken));
      const deployFile = [
        `org.apache.maven.plugins:maven-deploy-plugin:${deployPlugin}:deploy-file`,
        "-Dfile=tool.jar",
        "-DpomFile=tool.pom",
        `-Durl=${repo}`,
        "-DrepositoryId=lading",
      ];
      const deployed = await mvn(dir, publisher, ...deployFile);
      assert.match(deployed, /BUILD SUCCESS/);
      assert.match(deployed, /Uploaded to lading: .*tool-2\.5\.1\.jar/);

      const again = mvn(dir, publisher, ...deployFile);
      await assert.rejects(again, /409|Conflict/);

      // dependency:get must download: nothing of the artifact may be in the local repository.
      await rm(join(localRepo, "com/example/mvn"), { recursive: true, force: true });
      const got = await mvn(
        dir,
        publisher,
        `org.apache.maven.plugins:maven-dependency-plugin:${dependencyPlugin}:get`,
        "-Dartifact=com.example.mvn:tool:2.5.1",
        `-DremoteRepositories=lading::default::${repo}`,
        "-Dtransitive=false",
      );
      assert.match(got, /BUILD SUCCESS/);
      const base = join(localRepo, "com/example/mvn/tool/2.5.1");
      assert.deepEqual(await readFile(join(base, "tool-2.5.1.jar")), jar);
      assert.equal(await readFile(join(base, "tool-2.5.1.pom"), "utf8"), pomText);
      // Maven verified the download against the checksum file Lading served (it warns otherwise).
      assert.doesNotMatch(got, /Could not validate integrity of download from http/);
      assert.match(got, /Downloaded from lading: .*tool-2\.5\.1\.jar/);
    });
  });
}
