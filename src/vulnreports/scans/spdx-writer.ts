import { createHash } from "node:crypto";
import type { LayerPackage } from "../layers/layer-package.ts";

/** The image an SBOM is written for. */
export interface SbomSubject {
  /** The registry URL, e.g. `https://registry.example.com`. */
  registryUrl: string;
  /** `<org>/<repo>`, as clients pull it. */
  path: string;
  digest: string;
}

// A licence kept as `licenseDeclared` must parse as an SPDX expression; free text (a Python
// `License:` line such as "MIT License") is not one, so it goes to `licenseComments` instead.
const LICENSE_TOKEN = /^(?:[A-Za-z0-9][A-Za-z0-9.+-]*|AND|OR|WITH|\(|\))$/;

/** True when `text` looks like an SPDX licence expression (ids joined by AND/OR/WITH). */
export function isLicenseExpression(text: string): boolean {
  const tokens = text.replace(/[()]/g, " $& ").split(/\s+/).filter(Boolean);
  if (tokens.length === 0) return false;
  const operators = new Set(["AND", "OR", "WITH"]);
  let expectId = true;
  for (const token of tokens) {
    if (!LICENSE_TOKEN.test(token)) return false;
    if (token === "(" || token === ")") continue;
    if (operators.has(token) === expectId) return false;
    expectId = !expectId;
  }
  return !expectId;
}

/** The purl of the image itself, which readers recognise as the document's subject. */
export function imagePurl(subject: SbomSubject): string {
  const host = new URL(subject.registryUrl).host;
  const last = subject.path.slice(subject.path.lastIndexOf("/") + 1).toLowerCase();
  const repositoryUrl = encodeURIComponent(`${host}/${subject.path}`);
  return `pkg:oci/${encodeURIComponent(last)}@${encodeURIComponent(subject.digest)}?repository_url=${repositoryUrl}`;
}

/**
 * An SPDX 2.3 JSON document of the packages Lading found in an image: the image as the package
 * the document DESCRIBES (with an `oci` purl, so readers do not count it as a package), and
 * one package per found package with its purl, which the image CONTAINS.
 */
export function writeSpdx(
  subject: SbomSubject,
  packages: readonly LayerPackage[],
  toolVersion: string,
  created: Date,
): Buffer {
  const imageId = "SPDXRef-Image";
  const described = {
    SPDXID: imageId,
    name: subject.path,
    versionInfo: subject.digest,
    downloadLocation: "NOASSERTION",
    filesAnalyzed: false,
    primaryPackagePurpose: "CONTAINER",
    externalRefs: [purlRef(imagePurl(subject))],
  };
  const found = packages.map((p, i) => {
    const licence = p.licence?.trim() ?? "";
    const declared = licence !== "" && isLicenseExpression(licence) ? licence : "NOASSERTION";
    return {
      SPDXID: `SPDXRef-Package-${i + 1}`,
      name: p.name,
      versionInfo: p.version,
      downloadLocation: "NOASSERTION",
      filesAnalyzed: false,
      licenseConcluded: "NOASSERTION",
      licenseDeclared: declared,
      ...(declared === "NOASSERTION" && licence !== "" ? { licenseComments: licence } : {}),
      ...(p.origin ? { sourceInfo: `built from source package ${p.origin}` } : {}),
      comment: `found in ${p.source}`,
      externalRefs: [purlRef(p.purl)],
    };
  });
  const document = {
    spdxVersion: "SPDX-2.3",
    dataLicense: "CC0-1.0",
    SPDXID: "SPDXRef-DOCUMENT",
    name: `${subject.path}@${subject.digest}`,
    documentNamespace: `${subject.registryUrl.replace(/\/+$/, "")}/spdx/${subject.path}/${subject.digest}/${nameUuid(subject, toolVersion)}`,
    creationInfo: {
      // SPDX asks for seconds precision: YYYY-MM-DDThh:mm:ssZ.
      created: `${created.toISOString().slice(0, 19)}Z`,
      creators: [`Tool: lading-${toolVersion}`],
    },
    packages: [described, ...found],
    relationships: [
      {
        spdxElementId: "SPDXRef-DOCUMENT",
        relationshipType: "DESCRIBES",
        relatedSpdxElement: imageId,
      },
      ...found.map((p) => ({
        spdxElementId: imageId,
        relationshipType: "CONTAINS",
        relatedSpdxElement: p.SPDXID,
      })),
    ],
  };
  return Buffer.from(JSON.stringify(document));
}

/**
 * A UUID named by the image and the tool version (RFC 9562 version 8, from SHA-256): the same
 * image scanned by the same version gets the same document, hence the same referrer, rather
 * than one more on every rescan; another image or version gets another namespace.
 */
function nameUuid(subject: SbomSubject, toolVersion: string): string {
  const hash = createHash("sha256")
    .update(`${subject.registryUrl}\n${subject.path}\n${subject.digest}\n${toolVersion}`)
    .digest();
  hash[6] = (hash[6] & 0x0f) | 0x80;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function purlRef(purl: string) {
  return { referenceCategory: "PACKAGE-MANAGER", referenceType: "purl", referenceLocator: purl };
}
