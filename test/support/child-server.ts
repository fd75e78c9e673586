// A Lading server in a process of its own, for tests that measure the server (its event loop,
// its RSS) apart from the test's own work: argv[2] is the metadata store (`sqlite` or
// `postgres`); blobs are on the filesystem. Prints one JSON line with its URLs and the acme
// owner's tokens, and stops when its stdin closes.
import { type RegistryPair, startRegistryServer } from "./registry-server.ts";

const store = process.argv[2] === "postgres" ? "postgres" : "sqlite";
const r = await startRegistryServer({ store, blobs: "filesystem" } as unknown as RegistryPair);
process.stdout.write(
  `${JSON.stringify({
    registryUrl: r.registryUrl,
    apiUrl: r.server.apiUrl,
    registryToken: r.ownerToken,
    apiToken: r.server.org.token,
    orgUid: r.server.org.groupUid,
  })}\n`,
);
process.stdin.resume();
process.stdin.on("end", () => {
  r.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
