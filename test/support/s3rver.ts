import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}

const S3rver = createRequire(import.meta.url)("s3rver") as new (options: {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  configureBuckets: { name: string }[];
}) => S3rverInstance;

/** An S3 endpoint on loopback (the s3rver package), storing in `directory`, with `bucket` made. */
export async function startS3rver(
  directory: string,
  bucket: string,
): Promise<{ endpoint: string; close(): Promise<void> }> {
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  return { endpoint: `http://127.0.0.1:${port}`, close: () => server.close() };
}
