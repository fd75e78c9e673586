import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { EventActor } from "../../events/index.ts";
import type { Ecosystem } from "../../libraries/index.ts";
import type { HttpRequest, HttpResponse } from "../../rpc/index.ts";
import type { BlobStore } from "../../store/blobs/index.ts";
import type { MetadataSchema } from "../../store/metadata/index.ts";

/** What every library repository handler shares. */
export interface LibraryContext {
  db: Kysely<MetadataSchema>;
  blobs: BlobStore;
  log: Logger;
  /** The registry URL; repositories live under `<registryUrl>/<ecosystem>/<org>/`. */
  registryUrl: string;
  /** Largest file accepted in one upload, bytes. */
  maxFileBytes: number;
  /**
   * The caller's right to read (install, download) or publish in the request's organisation
   * and ecosystem; throws LibraryError 401 (with a Basic challenge) or 403 otherwise.
   */
  authorize(r: LibraryRequest, action: "read" | "publish"): Promise<LibraryCaller>;
}

/** Who is calling, once authorized. */
export interface LibraryCaller {
  /** The organisation's root group uid. */
  orgUid: string;
  /** For events: the identity, or "" for anonymous reads of the public organisation. */
  actor: EventActor;
}

/** One request to a library repository, its path split at the door. */
export interface LibraryRequest {
  req: HttpRequest;
  res: HttpResponse;
  method: string;
  query: URLSearchParams;
  requestId: string;
  ecosystem: Ecosystem;
  /** The organisation name: the path segment after the ecosystem. */
  orgName: string;
  /** The repository's own URL, `<registryUrl>/<ecosystem>/<org>`, without a trailing slash. */
  baseUrl: string;
  /** The path after `/<ecosystem>/<org>`, still percent-encoded, "" or starting with `/`. */
  rest: string;
}

/** Serves one ecosystem's protocol. */
export type EcosystemHandler = (ctx: LibraryContext, r: LibraryRequest) => Promise<void>;
