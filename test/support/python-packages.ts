import { createHash } from "node:crypto";
import { crc32, deflateRawSync, gzipSync } from "node:zlib";
import tar from "tar-stream";

/** Bytes of a zip archive with `files` (deflated), written the way wheel builders write them. */
export function zipArchive(files: Record<string, string | Buffer>): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const data = Buffer.from(content);
    const packed = deflateRawSync(data);
    const nameBytes = Buffer.from(name);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(8, 10);
    entry.writeUInt32LE(crc, 16);
    entry.writeUInt32LE(packed.length, 20);
    entry.writeUInt32LE(data.length, 24);
    entry.writeUInt16LE(nameBytes.length, 28);
    entry.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, packed);
    central.push(entry, nameBytes);
    offset += local.length + nameBytes.length + packed.length;
  }
  const dir = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

/** What a test wheel declares. */
export interface WheelSpec {
  name: string;
  version: string;
  requiresPython?: string;
  requires?: string[];
  /** METADATA's Name, when it should lie. */
  metadataName?: string;
}

/** A file to upload: its name and bytes. */
export interface PythonFile {
  filename: string;
  bytes: Buffer;
}

const recordHash = (data: string) =>
  `sha256=${createHash("sha256").update(data).digest("base64url")}`;

/** A pure-Python wheel with one module `<name>` whose `VERSION` is the version. */
export function buildWheel(spec: WheelSpec): PythonFile {
  const dist = spec.name.replace(/[-_.]+/g, "_");
  const info = `${dist}-${spec.version}.dist-info`;
  const metadata = [
    "Metadata-Version: 2.1",
    `Name: ${spec.metadataName ?? spec.name}`,
    `Version: ${spec.version}`,
    `Summary: test package ${spec.name}`,
    ...(spec.requiresPython ? [`Requires-Python: ${spec.requiresPython}`] : []),
    ...(spec.requires ?? []).map((r) => `Requires-Dist: ${r}`),
    "",
    "",
  ].join("\n");
  const files: Record<string, string> = {
    [`${dist}/__init__.py`]: `VERSION = "${spec.version}"\n`,
    [`${info}/METADATA`]: metadata,
    [`${info}/WHEEL`]:
      "Wheel-Version: 1.0\nGenerator: lading-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
  };
  const record = Object.entries(files).map(
    ([path, data]) => `${path},${recordHash(data)},${Buffer.byteLength(data)}`,
  );
  files[`${info}/RECORD`] = `${[...record, `${info}/RECORD,,`].join("\n")}\n`;
  return { filename: `${dist}-${spec.version}-py3-none-any.whl`, bytes: zipArchive(files) };
}

/** An sdist `<name>-<version>.tar.gz` with a PKG-INFO. */
export async function buildSdist(name: string, version: string): Promise<PythonFile> {
  const dist = name.replace(/[-_.]+/g, "_");
  const root = `${dist}-${version}`;
  const pack = tar.pack();
  pack.entry(
    { name: `${root}/PKG-INFO` },
    `Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\n`,
  );
  pack.entry({ name: `${root}/${dist}/__init__.py` }, `VERSION = "${version}"\n`);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return { filename: `${root}.tar.gz`, bytes: gzipSync(Buffer.concat(chunks)) };
}

/** The fields `twine upload` sends with a file, overridable (undefined drops a field). */
export function twineFields(
  file: PythonFile,
  name: string,
  version: string,
  overrides: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  const wheel = file.filename.endsWith(".whl");
  return {
    ":action": "file_upload",
    protocol_version: "1",
    metadata_version: "2.1",
    name,
    version,
    filetype: wheel ? "bdist_wheel" : "sdist",
    pyversion: wheel ? "py3" : "source",
    summary: `test package ${name}`,
    description: `# ${name}\n\nA test package.`,
    requires_python: "",
    md5_digest: createHash("md5").update(file.bytes).digest("hex"),
    sha256_digest: createHash("sha256").update(file.bytes).digest("hex"),
    ...overrides,
  };
}

/**
 * POSTs a multipart form as twine does (the fields, then the file in part `content`) to
 * `url`; `authorization` "" sends none. Resolves to the status and text answered.
 */
export async function twineUpload(
  url: string,
  authorization: string,
  file: PythonFile,
  fields: Record<string, string | undefined>,
): Promise<{ status: number; text: string; headers: Headers }> {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields))
    if (value !== undefined) form.append(key, value);
  form.append("content", new Blob([file.bytes]), file.filename);
  const res = await fetch(url, {
    method: "POST",
    body: form,
    headers: authorization ? { authorization } : {},
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** `Basic` credentials of a Lading token, as `~/.pypirc` with user `_token` gives them. */
export const basicToken = (token: string) =>
  `Basic ${Buffer.from(`_token:${token}`).toString("base64")}`;
