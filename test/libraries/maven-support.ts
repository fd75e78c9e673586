import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readdir } from "node:fs/promises";
import { request } from "node:http";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Basic credentials as Maven sends them for a Lading token. */
export const basic = (token: string, user = "_token") =>
  `Basic ${Buffer.from(`${user}:${token}`).toString("base64")}`;

/** The hex digest of `body`. */
export const hex = (algorithm: string, body: string | Buffer) =>
  createHash(algorithm).update(body).digest("hex");

/** A minimal pom of `groupId:artifactId:version`. */
export function pom(groupId: string, artifactId: string, version: string, extra = ""): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>${groupId}</groupId>
  <artifactId>${artifactId}</artifactId>
  <version>${version}</version>
  <packaging>jar</packaging>
  <organization><name>Not the project</name></organization>
${extra}</project>
`;
}

/**
 * Sends `method path` exactly as written (no URL normalisation, which would resolve `..` before
 * the server saw it) and resolves to the status and body.
 */
export function rawRequest(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body = "",
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, method, path, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => {
        text += d;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * Maven Central is out of reach, so Maven's own plugins come from Debian's repository
 * (packages maven, libmaven-deploy-plugin-java, libmaven-dependency-plugin-java); every other
 * repository is Lading.
 */
const debianRepo = "/usr/share/maven-repo";
const plugins = `${debianRepo}/org/apache/maven/plugins`;

/** The highest version of a plugin Debian installed, or undefined. */
export async function pluginVersion(name: string): Promise<string | undefined> {
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
export const deployPlugin = await pluginVersion("maven-deploy-plugin");
export const dependencyPlugin = await pluginVersion("maven-dependency-plugin");
/** Why the real-mvn tests cannot run here, or false. */
export const mvnSkip = !mvnPath
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
