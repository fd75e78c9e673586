import { isRegistryPath } from "../../registry/index.ts";
import { isDigest } from "../../store/blobs/index.ts";
import { type OciError, ociError } from "./oci-error.ts";

/** The query of `POST /v2/<name>/blobs/uploads/`, checked. */
export interface UploadStartParams {
  /** Cross-repo mount: the blob's digest. */
  mount: string | undefined;
  /** Cross-repo mount: the repository to mount from. */
  from: string | undefined;
  /** Single-POST upload: the digest the body must hash to. */
  digest: string | undefined;
}

type Parsed =
  | { value: UploadStartParams; error: undefined }
  | { value: undefined; error: OciError };

const names = ["mount", "from", "digest", "digest-algorithm"] as const;
const algorithms = new Set(["sha256", "sha512"]);

/**
 * Checks every parameter an upload start understands before anything is written: a malformed
 * `mount`, `digest` or `digest-algorithm` is 400 DIGEST_INVALID and a malformed `from` 400
 * NAME_INVALID, rather than falling back to a new session. A parameter given twice is refused
 * too: which of its values a proxy in front honoured cannot be known.
 */
export function parseUploadStart(query: URLSearchParams): Parsed {
  const given: Partial<Record<(typeof names)[number], string>> = {};
  for (const name of names) {
    const values = query.getAll(name);
    if (values.length > 1) {
      return refuse(name === "from" ? "NAME_INVALID" : "DIGEST_INVALID", `${name} is given twice`);
    }
    given[name] = values[0];
  }
  const { mount, from, digest } = given;
  for (const [name, value] of [
    ["mount", mount],
    ["digest", digest],
  ] as const) {
    if (value !== undefined && !isDigest(value)) {
      return refuse("DIGEST_INVALID", `${name} must be sha256:<64 hex> or sha512:<128 hex>`, {
        [name]: value.slice(0, 256),
      });
    }
  }
  const algorithm = given["digest-algorithm"];
  if (algorithm !== undefined && !algorithms.has(algorithm)) {
    return refuse("DIGEST_INVALID", "digest-algorithm must be sha256 or sha512", {
      "digest-algorithm": algorithm.slice(0, 64),
    });
  }
  if (from !== undefined && !isRegistryPath(from)) {
    return refuse("NAME_INVALID", `invalid repository name "${from.slice(0, 256)}"`, {
      from: from.slice(0, 256),
    });
  }
  return { value: { mount, from, digest }, error: undefined };
}

function refuse(code: "DIGEST_INVALID" | "NAME_INVALID", message: string, detail?: object): Parsed {
  return { value: undefined, error: ociError(400, code, message, detail) };
}
