import type { HttpRequest } from "../../rpc/index.ts";

/** Largest JSON body the REST door reads: 1 MiB, far above any resource of the API. */
export const maxBodyBytes = 1024 * 1024;

/** A request body, or the fact that it was larger than the limit (and was not read to the end). */
export type BodyRead = { tooLarge: false; bytes: Buffer } | { tooLarge: true };

/**
 * Reads a request body up to `limit` bytes. A Content-Length above the limit is refused before
 * reading anything; a body that grows past it is abandoned at that point, so an oversized
 * upload costs at most `limit` bytes of memory.
 */
export function readBody(req: HttpRequest, limit = maxBodyBytes): Promise<BodyRead> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve({ tooLarge: true });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        resolve({ tooLarge: true });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve({ tooLarge: false, bytes: Buffer.concat(chunks, size) });
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const onClose = () => {
      cleanup();
      reject(new Error("request closed before its body was read"));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}
