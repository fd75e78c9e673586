import { promisify } from "node:util";
import { brotliCompress, constants } from "node:zlib";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Compression } from "@connectrpc/connect/protocol";
import { compressionBrotli, compressionGzip } from "@connectrpc/connect-node";

/**
 * `compression` with decompression failures blamed on the client: the RPC library answers
 * INTERNAL for a truncated gzip or brotli body (zlib's "unexpected end of file"), which would
 * make a client's bad bytes look like a server fault (HTTP 500, grpc-status 13).
 */
function clientFault(compression: Compression): Compression {
  return {
    name: compression.name,
    compress: (bytes) => compression.compress(bytes),
    async decompress(bytes, readMaxBytes) {
      try {
        return await compression.decompress(bytes, readMaxBytes);
      } catch (err) {
        const error = ConnectError.from(err);
        if (error.code !== Code.Internal) throw error;
        throw new ConnectError(error.rawMessage, Code.InvalidArgument, undefined, undefined, err);
      }
    },
  };
}

const brotliCompressAsync = promisify(brotliCompress);

/**
 * Brotli answers at quality 4. The library compresses at zlib's default, quality 11, which
 * took 430 ms of a thread-pool thread for a 44 KB error body (and seconds for a 1 MiB one):
 * four anonymous requests asking for `br` would hold every thread of the pool, which file
 * writes and the other compressions share. Quality 4 takes 2 ms for the same body and
 * compresses it about as well as gzip.
 */
const brotliQuality4: Compression = {
  name: compressionBrotli.name,
  async compress(bytes) {
    const out = await brotliCompressAsync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 4 },
    });
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength) as Uint8Array<ArrayBuffer>;
  },
  decompress: compressionBrotli.decompress,
};

/**
 * The compressions the gRPC door reads in requests and writes in answers when the client
 * accepts them: gzip and brotli, as the library's default.
 */
export const requestCompressions: Compression[] = [
  clientFault(compressionGzip),
  clientFault(brotliQuality4),
];
