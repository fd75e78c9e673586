import { open, readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { FeedInput } from "../vulnerabilities/index.ts";
import { UsageError } from "./cli-context.ts";

/** Largest file (after decompression) an import reads. */
export const maxFeedFileBytes = 512 * 1024 * 1024;

/**
 * The files behind `paths`: a file as given, a folder walked for files ending in one of
 * `extensions` (sorted, so runs are repeatable), and "-" for standard input. Missing paths are
 * usage errors before anything is imported.
 */
export async function feedFiles(
  paths: readonly string[],
  extensions: readonly string[],
): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) {
    if (path === "-") {
      files.push("-");
      continue;
    }
    const info = await stat(path).catch(() => undefined);
    if (!info) throw new UsageError(`${path}: no such file or folder`);
    if (info.isDirectory()) files.push(...(await walk(path, extensions)));
    else files.push(path);
  }
  return files;
}

async function walk(dir: string, extensions: readonly string[]): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(path, extensions)));
    else if (entry.isFile() && extensions.some((e) => entry.name.endsWith(e))) out.push(path);
  }
  return out;
}

/** Reads each file as a feed input, gunzipping `.gz` files. */
export async function* readFeedInputs(
  files: readonly string[],
  stdin: NodeJS.ReadableStream = process.stdin,
): AsyncGenerator<FeedInput> {
  for (const file of files) {
    const bytes = file === "-" ? await readStream(stdin) : await readFile(file);
    const text = file.endsWith(".gz")
      ? gunzipSync(bytes, { maxOutputLength: maxFeedFileBytes }).toString("utf8")
      : bytes.toString("utf8");
    yield { file, text };
  }
}

async function readStream(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += buffer.length;
    if (size > maxFeedFileBytes)
      throw new UsageError(`standard input is larger than ${maxFeedFileBytes} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** The first bytes of a file as text (all of a gzipped one), for format detection. */
export async function peekFeedFile(file: string): Promise<string> {
  if (file.endsWith(".gz")) {
    return gunzipSync(await readFile(file), { maxOutputLength: maxFeedFileBytes }).toString(
      "utf8",
      0,
      4096,
    );
  }
  const handle = await open(file, "r");
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4096), 0, 4096, 0);
    return buffer.toString("utf8", 0, bytesRead);
  } finally {
    await handle.close();
  }
}
