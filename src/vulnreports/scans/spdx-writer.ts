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
 * one package per found package with its purl, which the image CONTAINS. The document is
 * yielded in pieces of about 64 KiB: for 170,000 packages the whole document as objects, one
 * string and one buffer held 250 MiB of the scan thread at once (issue 21.5). The bytes are
 * exactly `JSON.stringify` of the document, so a rescan still writes the same blob.
 */
export function* spdxChunks(
  subject: SbomSubject,
  packages: readonly LayerPackage[],
  toolVersion: string,
  created: Date,
): Generator<Buffer> {
  let pending: string[] = [];
  let length = 0;
  for (const part of spdxParts(subject, packages, toolVersion, created)) {
    pending.push(part);
    length += part.length;
    if (length >= CHUNK_CHARS) {
      yield Buffer.from(pending.join(""));
      pending = [];
      length = 0;
    }
  }
  if (pending.length > 0) yield Buffer.from(pending.join(""));
}

/** The whole document of spdxChunks as one buffer, for small images and tests. */
export function writeSpdx(
  subject: SbomSubject,
  packages: readonly LayerPackage[],
  toolVersion: string,
  created: Date,
): Buffer {
  return Buffer.concat([...spdxChunks(subject, packages, toolVersion, created)]);
}

const CHUNK_CHARS = 64 * 1024;
const IMAGE_ID = "SPDXRef-Image";

function* spdxParts(
  subject: SbomSubject,
  packages: readonly LayerPackage[],
  toolVersion: string,
  created: Date,
): Generator<string> {
  const head = {
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
  };
  const described = {
    SPDXID: IMAGE_ID,
    name: subject.path,
    versionInfo: subject.digest,
    downloadLocation: "NOASSERTION",
    filesAnalyzed: false,
    primaryPackagePurpose: "CONTAINER",
    externalRefs: [purlRef(imagePurl(subject))],
  };
  yield `${JSON.stringify(head).slice(0, -1)},"packages":[${JSON.stringify(described)}`;
  for (let i = 0; i < packages.length; i++) yield `,${JSON.stringify(spdxPackage(packages[i], i))}`;
  const describes = {
    spdxElementId: "SPDXRef-DOCUMENT",
    relationshipType: "DESCRIBES",
    relatedSpdxElement: IMAGE_ID,
  };
  yield `],"relationships":[${JSON.stringify(describes)}`;
  for (let i = 0; i < packages.length; i++) {
    const contains = {
      spdxElementId: IMAGE_ID,
      relationshipType: "CONTAINS",
      relatedSpdxElement: packageId(i),
    };
    yield `,${JSON.stringify(contains)}`;
  }
  yield "]}";
}

const packageId = (i: number) => `SPDXRef-Package-${i + 1}`;

function spdxPackage(p: LayerPackage, i: number) {
  const licence = p.licence?.trim() ?? "";
  const declared = licence !== "" && isLicenseExpression(licence) ? licence : "NOASSERTION";
  return {
    SPDXID: packageId(i),
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
