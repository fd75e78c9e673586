import { existsSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../cli-context.ts";
import { flagText, type LocalVerbNode } from "../command-spec.ts";
import { buildImage, writeImageLayout } from "../oci-layout.ts";

const tagPattern = /^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}$/;

/**
 * `lading admin demo-image`: a first image to push without Docker or a build tool, as an OCI
 * image layout (one small layer holding hello.txt), ready for `skopeo copy oci:DIR:TAG …`.
 */
export const demoImage: LocalVerbNode = {
  kind: "local",
  name: "demo-image",
  summary: "Write a tiny OCI image layout to push with skopeo (no Docker needed)",
  flags: [
    { name: "out", value: "DIR", required: true, help: "an empty or new directory for the layout" },
    { name: "tag", value: "TAG", help: "the layout's tag (default latest)" },
    { name: "text", value: "TEXT", help: "what hello.txt says (default: a greeting)" },
    { name: "arch", value: "ARCH", help: "the image's architecture (default amd64)" },
  ],
  examples: [
    "lading admin demo-image --out ./hello",
    "skopeo copy --dest-creds _token:$RTOKEN --dest-tls-verify=false oci:./hello:latest docker://127.0.0.1:5000/acme/hello:latest",
  ],
  async run(parsed, out) {
    const dir = resolve(flagText(parsed, "out") ?? "");
    const tag = flagText(parsed, "tag") ?? "latest";
    if (!tagPattern.test(tag)) throw new UsageError(`--tag must be an OCI tag, got "${tag}"`);
    if (existsSync(dir) && readdirSync(dir).length > 0) {
      throw new UsageError(`--out ${dir} is not empty; name a new or empty directory`);
    }
    const text = flagText(parsed, "text") ?? "Hello from Lading!\n";
    const image = buildImage(text, flagText(parsed, "arch") ?? "amd64");
    writeImageLayout(dir, tag, [image]);
    out.stdout.write(
      `${JSON.stringify({ layout: `oci:${dir}:${tag}`, digest: image.descriptor.digest })}\n`,
    );
    return 0;
  },
};
