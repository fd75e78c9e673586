import { LibraryError } from "../../../libraries/index.ts";
import type { LibraryContext, LibraryRequest } from "../library-context.ts";

/** Serves the maven repository protocol under `/<ecosystem>/<org>/`. */
export async function serveMaven(_ctx: LibraryContext, r: LibraryRequest): Promise<void> {
  throw new LibraryError(404, `no endpoint ${r.method} ${r.rest}`);
}
