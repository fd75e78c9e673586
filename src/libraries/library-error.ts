/**
 * A refusal of a library repository request, with the HTTP status the ecosystem's clients
 * expect (400 bad upload, 401/403 credentials, 404 missing, 409 version exists). Each door
 * renders it in its protocol's shape.
 */
export class LibraryError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = "LibraryError";
    this.status = status;
  }
}
