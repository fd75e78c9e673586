import {
  LibraryError,
  type PublishRequest,
  parseFileName,
  publishVersion,
  type StoredLibraryFile,
  storeLibraryFile,
} from "../../../libraries/index.ts";
import type { LibraryCaller, LibraryContext, LibraryRequest } from "../library-context.ts";
import { checkDistribution } from "./check-distribution.ts";
import { type MultipartLimits, parseFormBoundary, readMultipartForm } from "./multipart-form.ts";
import { parseUploadForm } from "./upload-form.ts";

/** twine sends some 25 fields, repeating `classifiers` and `requires_dist`; the file is one part. */
const limits: MultipartLimits = {
  parts: 1000,
  fieldBytes: 1024 * 1024,
  totalFieldBytes: 4 * 1024 * 1024,
  files: 1,
};

const bad = (message: string) => new LibraryError(400, message);

/**
 * `twine upload` (the legacy upload API): a multipart form with the project's fields and the
 * file in part `content`. The file streams into the blob store, checked against the declared
 * digests on the way, then the archive itself is checked; only then does publishing make a
 * version (the first file) or add the file to it (later files). Any refusal leaves no rows.
 */
export async function uploadPython(
  ctx: LibraryContext,
  r: LibraryRequest,
  caller: LibraryCaller,
): Promise<void> {
  const boundary = parseFormBoundary(r.req.headers["content-type"]);
  if (boundary.value === undefined) throw bad(boundary.error ?? "not multipart/form-data");
  let file: (StoredLibraryFile & { filename: string }) | undefined;
  const fields = await readMultipartForm(r.req, boundary.value, limits, async (part, soFar) => {
    if (part.field !== "content") {
      part.body.resume();
      throw bad(`unexpected file part ${part.field}: only content is accepted (no signatures)`);
    }
    const filename = parseFileName(part.filename);
    if (filename.value === undefined) throw bad(filename.error ?? "bad file name");
    // twine sends every field before the file (the digests last): with them all there, a bad
    // upload is refused before its bytes are stored.
    let expected: { sha256?: string; md5?: string } = {};
    if (soFar.has("sha256_digest") || soFar.has("md5_digest")) {
      const early = parseUploadForm(soFar, filename.value);
      if (early.value === undefined) throw bad(early.error ?? "bad upload");
      expected = { sha256: early.value.sha256, md5: early.value.md5 };
    }
    const stored = await storeLibraryFile(ctx.blobs, part.body, {
      expected,
      maxBytes: ctx.maxFileBytes,
    });
    file = { ...stored, filename: filename.value };
  });
  if (!file) throw bad("the file part content is missing");
  const form = parseUploadForm(fields, file.filename);
  if (form.value === undefined) throw bad(form.error ?? "bad upload");
  const upload = form.value;
  // Digests declared after the file part were not known while it streamed.
  if (upload.sha256 && upload.sha256 !== file.sha256) {
    throw bad(`sha256_digest ${upload.sha256} does not match the file (${file.sha256})`);
  }
  if (upload.md5 && upload.md5 !== file.md5) {
    throw bad(`md5_digest ${upload.md5} does not match the file (${file.md5})`);
  }
  const facts = await checkDistribution(
    ctx.blobs,
    { digest: file.digest, size: file.size, filename: file.filename, kind: upload.kind },
    upload.project,
    upload.version,
    ctx.maxFileBytes * 8,
  );
  if (facts.value === undefined) throw bad(facts.error ?? "bad distribution");
  const requiresPython = upload.requiresPython || facts.value.requiresPython || "";

  const request: PublishRequest = {
    orgUid: caller.orgUid,
    ecosystem: "python",
    name: upload.project,
    displayName: upload.name,
    version: upload.version,
    description: upload.summary,
    metadata: { summary: upload.summary, requires_python: requiresPython },
    files: [
      {
        filename: file.filename,
        stored: file,
        contentType: "application/octet-stream",
        metadata: {
          packagetype: upload.filetype,
          python_version: upload.pyversion,
          requires_python: requiresPython,
        },
      },
    ],
    actor: caller.actor,
    source: r.baseUrl,
  };
  // A wheel and an sdist make one version, whichever arrives first; a file name that exists is
  // still refused (409).
  await publishVersion(ctx.db, { ...request, addToExisting: true });
  const body = "OK\n";
  r.res.statusCode = 200;
  r.res.setHeader("content-type", "text/plain; charset=utf-8");
  r.res.setHeader("content-length", Buffer.byteLength(body));
  r.res.end(body);
}
