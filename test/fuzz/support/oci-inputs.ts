import { createHash } from "node:crypto";
import fc from "fast-check";
import { hex, nastyText } from "./nasty-inputs.ts";

/** A content descriptor. */
export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
}

/** What the fuzzer knows of the registry it talks to. */
export interface RegistryFacts {
  /** Repositories that exist, e.g. `acme/app`. */
  names: string[];
  /** Digests of stored blobs and manifests. */
  digests: string[];
  /** Tags that exist. */
  tags: string[];
  /** Descriptors of a stored image's config and layers, for manifests that reference them. */
  config: Descriptor;
  layers: Descriptor[];
}

/** sha256 digest of `bytes`. */
export const digestOf = (bytes: Buffer) =>
  `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

/** Repository names: real ones, near misses and path tricks. */
export function repoName(facts: RegistryFacts): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...facts.names), weight: 5 },
    {
      arbitrary: fc.constantFrom(
        "acme/new-repo",
        "acme/a/b/c",
        "Acme/App",
        "acme/../etc",
        "acme/%2e%2e/x",
        "acme//app",
        "acme/app/",
        "acme",
        "_lading/x",
        "acme/a__b--c.d",
        "nobody/app",
        "public/app",
      ),
      weight: 3,
    },
    {
      arbitrary: fc.integer({ min: 200, max: 400 }).map((n) => `acme/${"a".repeat(n)}`),
      weight: 1,
    },
    { arbitrary: nastyText.map((s) => `acme/${encodeURIComponent(s)}`), weight: 2 },
  );
}

/** Digests: stored ones, unknown valid ones, and every way to get one wrong. */
export function digest(facts: RegistryFacts): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...facts.digests), weight: 4 },
    { arbitrary: hex(64).map((h) => `sha256:${h}`), weight: 2 },
    { arbitrary: hex(128).map((h) => `sha512:${h}`), weight: 1 },
    {
      arbitrary: fc.oneof(
        fc.constantFrom(
          "sha256:",
          "sha256:xyz",
          "SHA256:0000",
          "md5:d41d8cd98f00b204e9800998ecf8427e",
          "sha256:../../etc/passwd",
          ":",
          "sha256",
        ),
        hex(64).map((h) => `sha256:${h.toUpperCase()}`),
        hex(63).map((h) => `sha256:${h}`),
        nastyText.map(encodeURIComponent),
      ),
      weight: 3,
    },
  );
}

/** Tags and digests as a manifest reference. */
export function reference(facts: RegistryFacts): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...facts.tags), weight: 3 },
    { arbitrary: fc.stringMatching(/^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,20}$/), weight: 2 },
    { arbitrary: digest(facts), weight: 3 },
    {
      arbitrary: fc.constantFrom("-bad", ".bad", "a".repeat(129), "a:b", "%00", "..", "t%2Fx"),
      weight: 2,
    },
  );
}

/** Ways a manifest can be wrong, each of which must make the registry refuse it. */
export type ManifestDefect = "schemaVersion" | "duplicate-keys" | "invalid-utf8";

/** A manifest PUT body and what is wrong with it on purpose. */
export interface ManifestBody {
  bytes: Buffer;
  defects: ManifestDefect[];
}

const manifestType = "application/vnd.oci.image.manifest.v1+json";

/** The parts of a manifest body, each possibly wrong. */
interface ManifestParts {
  /** JSON text of the value. */
  schemaVersion: string;
  mediaType: string;
  config: unknown;
  layers: unknown;
  /** Repeat `schemaVersion` as a second key. */
  duplicate: boolean;
  /** Put bytes that are not UTF-8 in an annotation. */
  badUtf8: boolean;
}

function renderManifest(m: ManifestParts): ManifestBody {
  const defects: ManifestDefect[] = [];
  if (m.schemaVersion !== "2") defects.push("schemaVersion");
  const members = [
    `"schemaVersion":${m.schemaVersion}`,
    `"mediaType":${JSON.stringify(m.mediaType)}`,
    `"config":${JSON.stringify(m.config)}`,
    `"layers":${JSON.stringify(m.layers)}`,
  ];
  if (m.duplicate) {
    members.push('"schemaVersion":2');
    defects.push("duplicate-keys");
  }
  if (m.badUtf8) defects.push("invalid-utf8");
  const bad = m.badUtf8 ? Buffer.from([0xc3, 0x28]) : Buffer.alloc(0);
  const head = Buffer.from(`{${members.join(",")},"annotations":{"a":"x`);
  return { bytes: Buffer.concat([head, bad, Buffer.from('"}}')]), defects };
}

const badSchemaVersions = ["1", "3", "0", "-2", '"2"', "1e400", "99999999999999999999"];

/**
 * A manifest that is valid but for at least one defect (a schemaVersion other than 2, a
 * duplicated key, bytes that are not UTF-8), so that refusing it can only be for the defect.
 */
export function defectiveManifest(facts: RegistryFacts): fc.Arbitrary<ManifestBody> {
  return fc
    .record({
      schemaVersion: fc.constantFrom("2", ...badSchemaVersions),
      mediaType: fc.constant(manifestType),
      config: fc.constant(facts.config),
      layers: fc.constant(facts.layers),
      duplicate: fc.boolean(),
      badUtf8: fc.boolean(),
    })
    .filter((m) => m.schemaVersion !== "2" || m.duplicate || m.badUtf8)
    .map(renderManifest);
}

/**
 * Manifest bodies: a valid image manifest over stored blobs, then mutated (schemaVersion,
 * media types, descriptors of wrong types or unknown blobs, duplicate keys, invalid UTF-8),
 * or random JSON, or not JSON at all.
 */
export function manifestBody(facts: RegistryFacts): fc.Arbitrary<ManifestBody> {
  const wrong = fc.oneof(
    fc.record({ mediaType: nastyText, digest: digest(facts), size: fc.integer() }),
    fc.jsonValue({ maxDepth: 2 }),
  );
  const config = fc.oneof({ arbitrary: fc.constant(facts.config), weight: 4 }, wrong);
  const layers = fc.oneof(
    { arbitrary: fc.constant(facts.layers), weight: 4 },
    fc.array(fc.oneof(fc.constantFrom(...facts.layers), wrong), { maxLength: 3 }),
  );
  const schemaVersion = fc.oneof(
    { arbitrary: fc.constant("2"), weight: 4 },
    { arbitrary: fc.constantFrom(...badSchemaVersions), weight: 2 },
  );
  const structured = fc
    .record({
      schemaVersion,
      mediaType: fc.oneof({ arbitrary: fc.constant(manifestType), weight: 4 }, nastyText),
      config,
      layers,
      duplicate: fc.boolean(),
      badUtf8: fc.boolean(),
    })
    .map(renderManifest);
  return fc.oneof(
    { arbitrary: structured, weight: 6 },
    { arbitrary: fc.json().map((s) => ({ bytes: Buffer.from(s), defects: [] })), weight: 1 },
    {
      arbitrary: fc
        .uint8Array({ maxLength: 100 })
        .map((b) => ({ bytes: Buffer.from(b), defects: [] as ManifestDefect[] })),
      weight: 1,
    },
  );
}

/** Content types for a manifest PUT, mostly the one that fits the body. */
export const manifestContentType: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(manifestType, ""), weight: 4 },
  {
    arbitrary: fc.constantFrom(
      "application/vnd.oci.image.index.v1+json",
      "application/vnd.docker.distribution.manifest.v2+json",
      "application/vnd.docker.distribution.manifest.v1+prettyjws",
      `${manifestType}; charset=utf-8`,
      "application/json",
      "text/plain",
    ),
    weight: 1,
  },
);
