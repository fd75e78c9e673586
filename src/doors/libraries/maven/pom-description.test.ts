import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseMavenPath } from "./maven-path.ts";
import { pomDescription } from "./pom-description.ts";

describe("pomDescription", () => {
  it("takes the project's own description, else its name, never a nested one", () => {
    const pom = `<?xml version="1.0"?>
<!-- <description>in a comment</description> -->
<project>
  <organization><name>Org</name><description>Org's</description></organization>
  <name>Demo</name>
  <description><![CDATA[Fast <b>things</b>]]> &amp; more</description>
</project>`;
    assert.equal(pomDescription(pom), "Fast <b>things</b> & more");
    assert.equal(
      pomDescription(
        "<project><licenses><license><name>MIT</name></license></licenses><name>  Just\n a name </name></project>",
      ),
      "Just a name",
    );
    assert.equal(pomDescription("<project><modelVersion>4.0.0</modelVersion></project>"), "");
  });

  it("never expands entities a DOCTYPE declares, and survives truncated input", () => {
    const pom = `<?xml version="1.0"?>
<!DOCTYPE project [<!ENTITY xxe SYSTEM "file:///etc/passwd"><!ENTITY big "x">]>
<project><description>&xxe;&big;&#65;&#x42;</description></project>`;
    assert.equal(pomDescription(pom), "&xxe;&big;AB");
    assert.equal(pomDescription("<project><description>cut off"), "");
    assert.equal(pomDescription("<project><description>".repeat(10_000)), "");
  });
});

describe("parseMavenPath", () => {
  it("splits the layout into coordinates, file and checksum", () => {
    assert.deepEqual(parseMavenPath("/com/example/demo/1.0/demo-1.0-sources.jar.sha512").value, {
      kind: "file",
      groupId: "com.example",
      artifactId: "demo",
      version: "1.0",
      filename: "demo-1.0-sources.jar",
      checksum: "sha512",
    });
    assert.deepEqual(parseMavenPath("/com/example/demo/maven-metadata.xml").value, {
      kind: "metadata",
      groupId: "com.example",
      artifactId: "demo",
      checksum: undefined,
    });
  });

  it("refuses traversal, separators and names that do not match the coordinates", () => {
    for (const rest of [
      "/com/%2e%2e/demo/1.0/demo-1.0.jar",
      "/com/./demo/1.0/demo-1.0.jar",
      "/com%2Fevil/demo/1.0/demo-1.0.jar",
      "/com/demo/1.0/demo-1.0.jar%5C..",
      "/com/demo/1.0/demo-1.0.jar%",
      "/com/demo/1.0/demo-1.0.",
      "/com/demo/1.0/demo-1.00.jar",
      "/com/demo/1.0 /demo-1.0 .jar",
      "/demo/1.0/demo-1.0.jar",
      "/",
    ]) {
      assert.ok(parseMavenPath(rest).error, rest);
    }
  });
});
