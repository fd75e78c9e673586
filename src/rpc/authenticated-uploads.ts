import type { HttpRequest } from "./raw-route.ts";

const uploads = new WeakSet<HttpRequest>();

/**
 * Marks `req` as an upload of an authenticated caller (a blob chunk or manifest pushed, a
 * library published): the listener then holds its body to the idle timeout only, not to the
 * body deadline and minimum rate every other body gets, so a large file on a slow link
 * finishes. A door calls it once the caller is authorized to push or publish, before reading
 * the body; an anonymous or refused request is never marked.
 */
export function markAuthenticatedUpload(req: HttpRequest): void {
  uploads.add(req);
}

/** Whether {@link markAuthenticatedUpload} marked `req`. */
export function isAuthenticatedUpload(req: HttpRequest): boolean {
  return uploads.has(req);
}
