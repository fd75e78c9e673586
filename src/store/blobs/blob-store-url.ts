import type { S3BlobStoreOptions } from "./s3-blob-store.ts";

/** What a blob store URL names. Only S3 has a URL form; the filesystem driver is the default. */
export type BlobStoreLocation = { driver: "s3"; options: S3BlobStoreOptions };

const bucketPattern = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const knownParams = new Set(["endpoint", "region", "forcePathStyle"]);

/**
 * Parses `s3://bucket/prefix?endpoint=URL&region=R&forcePathStyle=true`. Credentials never go
 * in the URL: the AWS SDK default chain supplies them (environment, profile, instance role).
 */
export function parseBlobStoreUrl(input: string): { value?: BlobStoreLocation; error?: string } {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { error: "blob store must be a URL such as s3://bucket/prefix" };
  }
  if (url.protocol !== "s3:") return { error: `unsupported blob store scheme ${url.protocol}` };
  if (url.username || url.password) {
    return { error: "credentials do not belong in the blob store URL; use AWS_* variables" };
  }
  const bucket = url.hostname;
  if (!bucketPattern.test(bucket))
    return { error: `invalid bucket name ${JSON.stringify(bucket)}` };
  const prefix = decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, "");
  if (prefix.split("/").some((segment) => segment === "." || segment === "..")) {
    return { error: "prefix must not contain . or .. segments" };
  }
  for (const key of url.searchParams.keys()) {
    if (!knownParams.has(key)) return { error: `unknown blob store parameter ${key}` };
  }
  const options: S3BlobStoreOptions = { bucket, prefix };
  const endpoint = url.searchParams.get("endpoint");
  if (endpoint !== null) {
    if (!URL.canParse(endpoint) || !/^https?:$/.test(new URL(endpoint).protocol)) {
      return { error: "endpoint must be an http or https URL" };
    }
    options.endpoint = endpoint;
  }
  const region = url.searchParams.get("region");
  if (region !== null) {
    if (!/^[a-z0-9-]+$/.test(region)) return { error: `invalid region ${JSON.stringify(region)}` };
    options.region = region;
  }
  const pathStyle = url.searchParams.get("forcePathStyle");
  if (pathStyle !== null) {
    if (pathStyle !== "true" && pathStyle !== "false") {
      return { error: "forcePathStyle must be true or false" };
    }
    options.forcePathStyle = pathStyle === "true";
  }
  return { value: { driver: "s3", options } };
}
