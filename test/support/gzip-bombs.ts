import { gzipSync } from "node:zlib";

const MIB = 1024 * 1024;

/** A ustar header block for a regular file `name` of `size` bytes. */
function tarHeader(name: string, size: number): Buffer {
  const block = Buffer.alloc(512);
  block.write(name, 0, 100, "utf8");
  block.write("0000644\0", 100);
  block.write("0000000\0", 108);
  block.write("0000000\0", 116);
  block.write(`${size.toString(8).padStart(11, "0")}\0`, 124);
  block.write("00000000000\0", 136);
  block.write("        ", 148);
  block.write("0", 156);
  block.write("ustar\0", 257);
  block.write("00", 263);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return block;
}

/** `bytes` padded with zeros to a whole number of tar blocks. */
const padded = (bytes: Buffer) =>
  Buffer.concat([bytes, Buffer.alloc((512 - (bytes.length % 512)) % 512)]);

/**
 * A gzip tar that unpacks to about `unpackedMiB` MiB: `files` first, then one file of zeros
 * filling the rest. Made of concatenated gzip members (which gunzip reads as one stream): one
 * MiB of zeros is compressed once and repeated, so a 4 GiB bomb is built in milliseconds and
 * is about 4 MB, and nothing near its unpacked size is ever held in memory.
 */
export function gzipTarBomb(
  unpackedMiB: number,
  files: Record<string, string>,
  zerosName: string,
): Buffer {
  const head: Buffer[] = [];
  for (const [name, text] of Object.entries(files)) {
    const content = Buffer.from(text);
    head.push(tarHeader(name, content.length), padded(content));
  }
  head.push(tarHeader(zerosName, unpackedMiB * MIB));
  const zeros = gzipSync(Buffer.alloc(MIB), { level: 9 });
  const members = [gzipSync(Buffer.concat(head))];
  for (let i = 0; i < unpackedMiB; i++) members.push(zeros);
  members.push(gzipSync(Buffer.alloc(1024)));
  return Buffer.concat(members);
}
