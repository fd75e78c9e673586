import { isRecord } from "./sbom-package.ts";

const STATEMENT_TYPES = new Set([
  "https://in-toto.io/Statement/v0.1",
  "https://in-toto.io/Statement/v1",
]);

// Tools write the bare URI (cosign --type spdxjson / cyclonedx) or add the version
// (syft, Docker BuildKit); the document inside says its own version, which is what counts.
const SPDX_PREDICATE = /^https:\/\/spdx\.dev\/Document(\/v\d+(\.\d+)*)?$/;
const CYCLONEDX_PREDICATE = /^https:\/\/cyclonedx\.org\/bom(\/v\d+(\.\d+)*)?$/;

const IN_TOTO = "application/vnd.in-toto+json";
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$|^[A-Za-z0-9_-]*={0,2}$/;

/** An SBOM found inside an attestation, still to be read by its format's parser. */
export interface WrappedSbom {
  kind: "spdx" | "cyclonedx";
  sbom: unknown;
}

/**
 * The SBOM an in-toto Statement (v0.1 or v1), already parsed, carries as its predicate. The
 * statement's `subject` is not compared with anything here: which image an SBOM belongs to is
 * decided by the referrer's `subject`, and a caller that wants both to agree checks that.
 */
export function unwrapStatement(statement: unknown): { value?: WrappedSbom; error?: string } {
  if (!isRecord(statement)) return { error: "an in-toto statement must be a JSON object" };
  const type = statement._type;
  if (typeof type !== "string" || !STATEMENT_TYPES.has(type)) {
    return { error: `_type ${JSON.stringify(type)} is not an in-toto Statement v0.1 or v1` };
  }
  const predicateType = statement.predicateType;
  const kind =
    typeof predicateType !== "string"
      ? undefined
      : SPDX_PREDICATE.test(predicateType)
        ? "spdx"
        : CYCLONEDX_PREDICATE.test(predicateType)
          ? "cyclonedx"
          : undefined;
  if (kind === undefined) {
    return {
      error: `predicateType ${JSON.stringify(predicateType)} is not an SPDX or CycloneDX SBOM`,
    };
  }
  // SPDX tag-value (cosign --type spdx) arrives as a string; only JSON documents are read.
  if (!isRecord(statement.predicate)) {
    return { error: `the ${kind} predicate is not a JSON object` };
  }
  return { value: { kind, sbom: statement.predicate } };
}

/**
 * The in-toto statement bytes a DSSE envelope, already parsed, carries. The signatures are NOT
 * verified here: this only reads what the envelope says, and trusting it is the caller's
 * decision (a registry stores what it is given; verification needs keys this library lacks).
 */
export function unwrapDsse(envelope: unknown): { value?: Buffer; error?: string } {
  if (!isRecord(envelope)) return { error: "a DSSE envelope must be a JSON object" };
  if (envelope.payloadType !== IN_TOTO) {
    return {
      error: `DSSE payloadType ${JSON.stringify(envelope.payloadType)} is not ${IN_TOTO}`,
    };
  }
  const payload = envelope.payload;
  if (typeof payload !== "string" || payload === "") {
    return { error: "the DSSE payload is missing" };
  }
  // Buffer.from skips characters that are not base64, which would turn garbage into bytes.
  if (!BASE64.test(payload)) return { error: "the DSSE payload is not base64" };
  return {
    value: Buffer.from(
      payload,
      payload.includes("-") || payload.includes("_") ? "base64url" : "base64",
    ),
  };
}
