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

/** The request compressions the gRPC door accepts: gzip and brotli, as the library's default. */
export const requestCompressions: Compression[] = [
  clientFault(compressionGzip),
  clientFault(compressionBrotli),
];
