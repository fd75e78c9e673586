import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";
import { pom } from "./maven-support.ts";

const run = promisify(execFile);

/**
 * Maven Central is out of reach, so Maven's own plugins come from Debian's repository
 * (packages maven, libmaven-deploy-plugin-java, libmaven-dependency-plugin-java); every other
 * repository is Lading.
 */
const debianRepo = "/usr/share/maven-repo";
const plugins = `${debianRepo}/org/apache/maven/plugins`;

/** The highest version of a plugin Debian installed, or undefined. */
async function pluginVersion(name: string): Promise<string | undefined> {
  const versions = await readdir(join(plugins, name)).catch(() => [] as string[]);
  return versions
    .filter((v) => /^\d+(\.\d+)*$/.test(v))
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }))
    .pop();
}

const mvnPath = await run("sh", ["-c", "command -v mvn"]).then(
  (r) => r.stdout.trim(),
  () => "",
);
const deployPlugin = await pluginVersion("maven-deploy-plugin");
const dependencyPlugin = await pluginVersion("maven-dependency-plugin");
const skip = !mvnPath
  ? "mvn is not on PATH (apt-get install maven libmaven-deploy-plugin-java libmaven-dependency-plugin-java)"
  : !deployPlugin || !dependencyPlugin
    ? `mvn is installed but not Debian's deploy and dependency plugins under ${plugins}: apt-get install libmaven-deploy-plugin-java libmaven-dependency-plugin-java`
    : false;

/** A settings.xml: Lading as server `lading`, Debian's repository for everything else. */
export function mvnSettings(localRepo: string, username: string, password: string): string {
  return `<settings>
  <localRepository>${localRepo}</localRepository>
  <offline>false</offline>
  <servers>
    <server><id>lading</id><username>${username}</username><password>${password}</password></server>
  </servers>
  <mirrors>
    <mirror><id>debian</id><mirrorOf>*,!lading</mirrorOf><url>file://${debianRepo}</url></mirror>
  </mirrors>
</settings>
`;
}

/** Runs mvn in batch mode; resolves to its output, rejects with it. */
export async function mvn(dir: string, settings: string, ...args: string[]): Promise<string> {
  try {
    const ran = await run("mvn", ["-B", "-s", settings, ...args], {
      cwd: dir,
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, MAVEN_OPTS: "-Xmx256m" },
    });
    return ran.stdout;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    throw new Error(`mvn ${args[0]} failed:\n${e.stdout ?? ""}${e.stderr ?? String(error)}`);
  }
}

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
      const deployed = await mvn(
        dir,
        publisher,
        `org.apache.maven.plugins:maven-deploy-plugin:${deployPlugin}:deploy-file`,
        "-Dfile=tool.jar",
        "-DpomFile=tool.pom",
        `-Durl=${repo}`,
        "-DrepositoryId=lading",
      );
      assert.match(deployed, /BUILD SUCCESS/);
      assert.match(deployed, /Uploaded to lading: .*tool-2\.5\.1\.jar/);

      const again = mvn(
        dir,
        publisher,
        `org.apache.maven.plugins:maven-deploy-plugin:${deployPlugin}:deploy-file`,
        "-Dfile=tool.jar",
        "-DpomFile=tool.pom",
        `-Durl=${repo}`,
        "-DrepositoryId=lading",
      );
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
