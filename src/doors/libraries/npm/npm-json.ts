import { LibraryError } from "../../../libraries/index.ts";
import type { LibraryRequest } from "../library-context.ts";

/** Answers `status` with a JSON body, as npm reads every answer. */
export function sendNpmJson(
  r: LibraryRequest,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const body = Buffer.from(JSON.stringify(value));
  sendNpmBytes(r, status, body, { "content-type": "application/json", ...headers });
}

/** Answers with encoded bytes (a cached packument), headers only for HEAD. */
export function sendNpmBytes(
  r: LibraryRequest,
  status: number,
  body: Buffer,
  headers: Record<string, string>,
): void {
  const { res } = r;
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader("content-length", body.length);
  if (r.method === "HEAD") res.end();
  else res.end(body);
}

/** Reads a small JSON body (a dist-tag's version) of at most `limit` bytes. */
export async function readSmallJson(r: LibraryRequest, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  // An early stop must not destroy the request: the answer would then never reach the client.
  for await (const chunk of r.req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new LibraryError(413, `the body exceeds ${limit} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new LibraryError(400, "the body is not JSON");
  }
}
