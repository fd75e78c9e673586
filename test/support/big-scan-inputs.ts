import { gzipSync } from "node:zlib";
import type { BuiltImage } from "./oci-layout.ts";
import { imageOf, packageFiles, referrerOf } from "./scan-images.ts";
import { tarBytes } from "./tar-layers.ts";

export const SPDX = "application/spdx+json";

/**
 * A dpkg status of `count` installed packages: about 90 bytes a stanza, so 170,000 make the
 * 15 MiB database of issue 21 that gzips to about 1 MB.
 */
export function dpkgStatus(count: number): string {
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    parts.push(
      `Package: pkg-${i}\nStatus: install ok installed\nArchitecture: amd64\nVersion: 1.${i % 97}-${i}\n`,
    );
  }
  return parts.join("\n");
}

/** An image of one gzip layer holding an os-release and a dpkg status of `count` packages. */
export async function bigDpkgImage(count: number, marker: string): Promise<BuiltImage> {
  const status = dpkgStatus(count);
  const tar = await tarBytes([
    { name: "etc/os-release", content: 'ID=debian\nVERSION_ID="12"\n' },
    { name: "var/lib/dpkg/status", content: status },
    { name: "marker", content: marker },
  ]);
  return imageOf([gzipSync(tar, { level: 6 })]);
}

/**
 * An SPDX 2.3 document of `count` npm packages, each with a purl, a licence and the fields
 * syft writes: 199,000 make the 45 MB referrer of issue 21.
 */
export function bigSpdx(count: number, tiny = 0): Buffer {
  const packages: string[] = [];
  // Packages with a name only: the most objects a 64 MiB SBOM can hold.
  for (let i = 0; i < tiny; i++) packages.push(`{"name":"p${i}"}`);
  for (let i = 0; i < count; i++) {
    const version = `1.${i % 13}.${i}`;
    packages.push(
      `{"name":"package-${i}","SPDXID":"SPDXRef-Package-${i}","versionInfo":"${version}",` +
        `"downloadLocation":"NOASSERTION","licenseConcluded":"MIT","externalRefs":[{` +
        `"referenceCategory":"PACKAGE-MANAGER","referenceType":"purl",` +
        `"referenceLocator":"pkg:npm/package-${i}@${version}"}]}`,
    );
  }
  const head = JSON.stringify({
    spdxVersion: "SPDX-2.3",
    dataLicense: "CC0-1.0",
    SPDXID: "SPDXRef-DOCUMENT",
    name: "big",
    documentNamespace: "https://lading.test/spdx/big",
    creationInfo: { created: "2026-01-01T00:00:00Z", creators: ["Tool: test"] },
  });
  return Buffer.from(`${head.slice(0, -1)},"packages":[${packages.join(",")}]}`);
}

/** A small image to hang an SBOM on, and the referrer of `count` packages for it. */
export async function bigSpdxReferrer(
  count: number,
  marker: string,
  tiny = 0,
): Promise<{ image: BuiltImage; referrer: BuiltImage }> {
  const image = await imageOf([
    [packageFiles.osRelease, packageFiles.apk, { name: "marker", content: marker }],
  ]);
  return { image, referrer: referrerOf(image.descriptor, SPDX, bigSpdx(count, tiny), SPDX) };
}
