import { createHash } from "node:crypto";
import type { DigestAlgorithm } from "./blob-store.ts";

/** A digest split into its parts, known to be well formed. */
export interface ParsedDigest {
  algorithm: DigestAlgorithm;
  /** Lowercase hex: 64 characters for sha256, 128 for sha512. */
  hex: string;
  /** `<algorithm>:<hex>`. */
  digest: string;
}

const digestPattern = /^(?:sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})$/;

/** True for a digest the registry accepts: sha256 or sha512, lowercase hex. */
export function isDigest(input: string): boolean {
  return digestPattern.test(input);
}

/**
 * Parses a digest strictly (`sha256:` + 64 or `sha512:` + 128 lowercase hex), so the parts can
 * safely become path segments or object keys.
 */
export function parseDigest(input: unknown): { value?: ParsedDigest; error?: string } {
  if (typeof input !== "string" || !digestPattern.test(input)) {
    return { error: "digest must be sha256:<64 hex> or sha512:<128 hex>, lowercase" };
  }
  const [algorithm, hex] = input.split(":") as [DigestAlgorithm, string];
  return { value: { algorithm, hex, digest: input } };
}

/** Like {@link parseDigest}, but throws an InvalidDigestError. */
export function requireDigest(input: unknown): ParsedDigest {
  const { value, error } = parseDigest(input);
  if (!value) throw new InvalidDigestError(String(input), error ?? "invalid digest");
  return value;
}

/** A digest (from a client or a caller) that is not well formed. */
export class InvalidDigestError extends Error {
  readonly digest: string;

  constructor(digest: string, reason: string) {
    super(`invalid digest ${JSON.stringify(digest.slice(0, 140))}: ${reason}`);
    this.digest = digest;
  }
}

/**
 * The algorithm for a put: the expected digest's (validated), else `algorithm`, else sha256.
 */
export function pickAlgorithm(options?: { expectedDigest?: string; algorithm?: DigestAlgorithm }): {
  algorithm: DigestAlgorithm;
  expected?: ParsedDigest;
} {
  if (options?.expectedDigest !== undefined) {
    const expected = requireDigest(options.expectedDigest);
    return { algorithm: expected.algorithm, expected };
  }
  const algorithm = options?.algorithm ?? "sha256";
  if (algorithm !== "sha256" && algorithm !== "sha512") {
    throw new InvalidDigestError(String(algorithm), "algorithm must be sha256 or sha512");
  }
  return { algorithm };
}

/** A running hash and the byte count it has seen. */
export interface DigestHasher {
  readonly algorithm: DigestAlgorithm;
  readonly size: number;
  update(chunk: Uint8Array): void;
  /** `<algorithm>:<hex>`; ends the hasher. */
  digest(): string;
}

/** Creates a {@link DigestHasher}. */
export function createDigestHasher(algorithm: DigestAlgorithm): DigestHasher {
  const hash = createHash(algorithm);
  let seen = 0;
  return {
    algorithm,
    get size() {
      return seen;
    },
    update(chunk) {
      hash.update(chunk);
      seen += chunk.byteLength;
    },
    digest() {
      return `${algorithm}:${hash.digest("hex")}`;
    },
  };
}
