import { createHash } from "node:crypto";
import { request } from "node:http";

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
