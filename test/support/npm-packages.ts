import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import tar from "tar-stream";

const run = promisify(execFile);

/** A gzip tar as `npm pack` makes it: files under `package/`. */
export async function packTarball(files: Record<string, string>): Promise<Buffer> {
  const pack = tar.pack();
  for (const [name, text] of Object.entries(files)) pack.entry({ name: `package/${name}` }, text);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack as AsyncIterable<Buffer>) chunks.push(chunk);
  return gzipSync(Buffer.concat(chunks));
}

/** One version's manifest in a publish body. */
export interface PublishManifest {
  name: string;
  version: string;
  dist: { shasum?: string; integrity?: string; tarball?: string };
  [field: string]: unknown;
}

/** The body of `npm publish`, loosely typed so tests can break it. */
export interface PublishDocument {
  _id?: string;
  name: string;
  "dist-tags": Record<string, string>;
  versions: Record<string, PublishManifest>;
  _attachments: Record<string, { content_type: string; data: string; length: number }>;
  [field: string]: unknown;
}

/** The body `npm publish` sends for one version of `name` with `tgz`; `edit` changes it. */
export function publishDocument(
  name: string,
  version: string,
  tgz: Buffer,
  edit: (doc: PublishDocument) => void = () => {},
): PublishDocument {
  const file = `${name}-${version}.tgz`;
  const doc: PublishDocument = {
    _id: name,
    name,
    description: "test package",
    "dist-tags": { latest: version },
    versions: {
      [version]: {
        name,
        version,
        description: "test package",
        _id: `${name}@${version}`,
        dist: {
          shasum: createHash("sha1").update(tgz).digest("hex"),
          integrity: `sha512-${createHash("sha512").update(tgz).digest("base64")}`,
          tarball: `http://example.invalid/${file}`,
        },
      },
    },
    access: null,
    _attachments: {
      [file]: {
        content_type: "application/octet-stream",
        data: tgz.toString("base64"),
        length: tgz.length,
      },
    },
  };
  edit(doc);
  return doc;
}

/** A tarball of a package whose package.json names `name@version`. */
export function packageTarball(name: string, version: string, extra: Record<string, unknown> = {}) {
  return packTarball({
    "package.json": JSON.stringify({ name, version, description: "test package", ...extra }),
    "index.js": `module.exports = ${JSON.stringify(`${name}@${version}`)};\n`,
  });
}

/** The system npm (on the system Node), isolated from the caller's npm settings. */
export async function npm(
  cwd: string,
  userconfig: string,
  args: string[],
): Promise<{ stdout: string; stderr: string }> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.toLowerCase().startsWith("npm_")) env[key] = value;
  }
  env.PATH = `/usr/bin:/bin`;
  env.HOME = cwd;
  env.npm_config_userconfig = userconfig;
  env.npm_config_cache = `${userconfig}.cache`;
  env.npm_config_update_notifier = "false";
  try {
    return await run("/usr/bin/npm", [...args, "--no-audit", "--no-fund", "--no-update-notifier"], {
      cwd,
      env,
      encoding: "utf8",
      timeout: 120_000,
    });
  } catch (error) {
    const e = error as { stderr?: string; stdout?: string; message: string };
    const failure = new Error(`npm ${args.join(" ")} failed: ${e.stderr ?? e.message}`);
    Object.assign(failure, { stderr: e.stderr ?? "", stdout: e.stdout ?? "" });
    throw failure;
  }
}
