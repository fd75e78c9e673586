import { execFile } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A throwaway self-signed certificate for 127.0.0.1 and localhost, made with openssl. */
export interface TestCertificate {
  dir: string;
  keyFile: string;
  certFile: string;
  key: string;
  cert: string;
}

/** Makes a P-256 certificate valid for one day in a new temp directory. */
export async function makeCertificate(): Promise<TestCertificate> {
  const dir = await mkdtemp(join(tmpdir(), "lading-tls-"));
  const [keyFile, certFile] = [join(dir, "key.pem"), join(dir, "cert.pem")];
  await run("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    keyFile,
    "-out",
    certFile,
    "-days",
    "1",
    "-subj",
    "/CN=localhost",
    "-addext",
    "subjectAltName=IP:127.0.0.1,DNS:localhost",
  ]);
  return {
    dir,
    keyFile,
    certFile,
    key: await readFile(keyFile, "utf8"),
    cert: await readFile(certFile, "utf8"),
  };
}
