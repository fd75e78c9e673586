import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BuiltImage, type Descriptor, writeImageLayout } from "../../src/cli/oci-layout.ts";

export {
  type BuiltImage,
  buildImage,
  buildIndex,
  type Descriptor,
  sha256,
  tarGz,
} from "../../src/cli/oci-layout.ts";

/** An OCI image layout in a new temp directory; returns the directory. */
export function writeLayout(
  tag: string,
  images: BuiltImage[],
  index?: { bytes: Buffer; descriptor: Descriptor },
): string {
  return writeImageLayout(mkdtempSync(join(tmpdir(), "lading-oci-")), tag, images, index);
}
