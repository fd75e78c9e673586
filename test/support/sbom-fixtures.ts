import { readFileSync } from "node:fs";
import type { SbomPackage } from "../../src/vulnreports/sbom/sbom-package.ts";

const dir = new URL("../fixtures/sboms/", import.meta.url);

/** A hand-written SBOM fixture's text. */
export function sbomFixture(name: string): string {
  return readFileSync(new URL(name, dir), "utf8");
}

/** A fixture parsed as JSON, for the parsers that take a parsed document. */
export function sbomFixtureJson(name: string): unknown {
  return JSON.parse(sbomFixture(name));
}

const apk = (name: string, version: string, licence: string): SbomPackage => ({
  name,
  version,
  purl: `pkg:apk/wolfi/${name}@${version}?arch=x86_64&distro=wolfi`,
  ecosystem: "apk",
  licence,
});

/** Every package of wolfi-image.spdx.json (and of the in-toto and DSSE wrappings of it). */
export const wolfiPackages: SbomPackage[] = [
  // The OS entry has no purl but is not what the document describes, so it stays.
  { name: "wolfi", version: "20230201", purl: "", ecosystem: "", licence: "" },
  apk("wolfi-baselayout", "20230201-r15", "MIT"),
  apk("ca-certificates-bundle", "20241121-r0", "MPL-2.0 AND MIT"),
  apk("glibc", "2.40-r3", "LGPL-2.1-or-later"),
  apk("libcrypto3", "3.4.0-r2", "Apache-2.0"),
  apk("tzdata", "2024b-r1", ""),
];

/** Every package of mixed-app.cdx-1.5.json, nested ones after their parent. */
export const mixedAppPackages: SbomPackage[] = [
  {
    name: "requests",
    version: "2.32.3",
    purl: "pkg:pypi/requests@2.32.3",
    ecosystem: "pypi",
    licence: "Apache-2.0",
  },
  {
    name: "urllib3",
    version: "1.26.16+cgr.0",
    purl: "pkg:pypi/urllib3@1.26.16%2Bcgr.0",
    ecosystem: "pypi",
    licence: "MIT License",
  },
  {
    name: "node",
    version: "20.11.5",
    purl: "pkg:npm/%40types/node@20.11.5",
    ecosystem: "npm",
    licence: "MIT",
  },
  {
    name: "express",
    version: "4.21.1",
    purl: "pkg:npm/express@4.21.1",
    ecosystem: "npm",
    licence: "MIT",
  },
  {
    name: "qs",
    version: "6.13.0",
    purl: "pkg:npm/qs@6.13.0",
    ecosystem: "npm",
    licence: "BSD-3-Clause",
  },
  { name: "checkout-service.jar", version: "3.2.0", purl: "", ecosystem: "", licence: "" },
  {
    name: "log4j-core",
    version: "2.17.1",
    purl: "pkg:maven/org.apache.logging.log4j/log4j-core@2.17.1",
    ecosystem: "maven",
    licence: "Apache-2.0",
  },
  {
    name: "log4j-api",
    version: "2.17.1",
    purl: "pkg:maven/org.apache.logging.log4j/log4j-api@2.17.1",
    ecosystem: "maven",
    licence: "Apache-2.0",
  },
  {
    name: "spring-security-web",
    version: "5.8.16-0.cgr.1",
    purl: "pkg:maven/org.springframework.security/spring-security-web@5.8.16-0.cgr.1",
    ecosystem: "maven",
    licence: "Apache-2.0 AND (EPL-2.0 OR GPL-2.0-only WITH Classpath-exception-2.0)",
  },
  {
    name: "github.com/sirupsen/logrus",
    version: "v1.9.3",
    purl: "pkg:golang/github.com/sirupsen/logrus@v1.9.3",
    ecosystem: "golang",
    licence: "",
  },
  {
    name: "golang.org/x/net",
    version: "v0.23.0",
    purl: "pkg:golang/golang.org/x/net@v0.23.0",
    ecosystem: "golang",
    licence: "BSD-3-Clause",
  },
];
