import { existsSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../cli-context.ts";
import { flagList, flagText, type LocalVerbNode } from "../command-spec.ts";
import { buildImage, writeImageLayout } from "../oci-layout.ts";

const tagPattern = /^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}$/;
/** apk package names and versions: no spaces, colons or line breaks, which the database uses. */
const apkText = /^[A-Za-z0-9._+~-]{1,128}$/;

/** Reads `--apk NAME=VERSION` values. */
function readApkFlags(
  values: string[],
): { value: [string, string][]; error?: undefined } | { value?: undefined; error: string } {
  const packages: [string, string][] = [];
  for (const value of values) {
    const [name, version, extra] = value.split("=");
    if (extra !== undefined || !apkText.test(name ?? "") || !apkText.test(version ?? "")) {
      return { error: `--apk must be NAME=VERSION (e.g. git=2.40.1-r0), got "${value}"` };
    }
    packages.push([name, version]);
  }
  return { value: packages };
}

/** The files a Wolfi image with these packages holds: os-release and the apk database. */
function packageFiles(
  packages: [string, string][],
  architecture: string,
): { name: string; content: string }[] {
  if (packages.length === 0) return [];
  const arch = { amd64: "x86_64", arm64: "aarch64" }[architecture] ?? architecture;
  const installed = packages
    .map(([name, version]) => `P:${name}\nV:${version}\nA:${arch}\no:${name}\n`)
    .join("\n");
  return [
    { name: "etc/os-release", content: 'ID=wolfi\nNAME="Wolfi"\nPRETTY_NAME="Wolfi"\n' },
    { name: "lib/apk/db/installed", content: `${installed}\n` },
  ];
}

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
    {
      name: "apk",
      value: "NAME=VERSION",
      multiple: true,
      help: "an installed Wolfi package, recorded in the image's apk database",
    },
  ],
  examples: [
    "lading admin demo-image --out ./hello",
    "skopeo copy --dest-creds _token:$RTOKEN --dest-tls-verify=false oci:./hello:latest docker://127.0.0.1:5000/acme/hello:latest",
    "lading admin demo-image --out ./app-1 --apk git=2.40.1-r0 --apk curl=8.4.0-r0",
  ],
  async run(parsed, out) {
    const dir = resolve(flagText(parsed, "out") ?? "");
    const tag = flagText(parsed, "tag") ?? "latest";
    if (!tagPattern.test(tag)) throw new UsageError(`--tag must be an OCI tag, got "${tag}"`);
    if (existsSync(dir) && readdirSync(dir).length > 0) {
      throw new UsageError(`--out ${dir} is not empty; name a new or empty directory`);
    }
    const text = flagText(parsed, "text") ?? "Hello from Lading!\n";
    const packages = readApkFlags(flagList(parsed, "apk"));
    if (packages.error !== undefined) throw new UsageError(packages.error);
    const arch = flagText(parsed, "arch") ?? "amd64";
    const image = buildImage(text, arch, packageFiles(packages.value, arch));
    writeImageLayout(dir, tag, [image]);
    out.stdout.write(
      `${JSON.stringify({ layout: `oci:${dir}:${tag}`, digest: image.descriptor.digest })}\n`,
    );
    return 0;
  },
};
