import { pipeline, type Readable, Transform } from "node:stream";

/** How far a compressed input may expand before it is refused. */
export interface DecompressionBudget {
  /** Bytes out per compressed byte in, measured as the stream goes. */
  ratio: number;
  /** Bytes out always allowed, whatever the ratio (small inputs expand a lot in relative terms). */
  floorBytes: number;
  /** Bytes out never exceeded, whatever the input. */
  maxBytes: number;
}

/** The input expanded past its budget; the message says by how much. */
export class DecompressionBudgetExceeded extends Error {}

/**
 * `source` through `decoder` (a gunzip, a zstd decompressor), refused with
 * {@link DecompressionBudgetExceeded} as soon as its output passes the budget: the bytes in so
 * far times `ratio` (at least `floorBytes`), and `maxBytes`. The ratio is checked as the bytes
 * arrive, so a bomb (4 MB of gzip that would unpack to 4 GiB) is stopped after `floorBytes`,
 * not after its whole output has been computed and thrown away. A failure anywhere destroys
 * the whole chain, the source included, and surfaces as an error of the returned stream.
 */
export function decompressWithin(
  source: NodeJS.ReadableStream,
  decoder: Transform,
  budget: DecompressionBudget,
): Readable {
  let bytesIn = 0;
  let bytesOut = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytesIn += chunk.length;
      done(null, chunk);
    },
  });
  const limiter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytesOut += chunk.length;
      // zlib's decoders count what their engine has consumed: a large chunk written at once
      // counts as it is decoded, not all at once.
      const consumed = (decoder as { bytesWritten?: number }).bytesWritten;
      if (consumed !== undefined) bytesIn = consumed;
      const allowed = Math.min(
        budget.maxBytes,
        Math.max(budget.floorBytes, bytesIn * budget.ratio),
      );
      if (bytesOut > allowed) {
        done(
          new DecompressionBudgetExceeded(
            `unpacks to more than ${allowed} bytes from ${bytesIn} compressed bytes ` +
              `(the budget: ${budget.ratio} times the compressed size, at least ` +
              `${budget.floorBytes} and at most ${budget.maxBytes} bytes)`,
          ),
        );
      } else done(null, chunk);
    },
  });
  // The callback only keeps pipeline from reporting an unhandled error: readers see it on
  // `limiter`, which pipeline destroys with it.
  pipeline(source, counter, decoder, limiter, () => {});
  return limiter;
}
