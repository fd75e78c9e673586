import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createTestStore, type TestStore } from "../../../test/support/stores.ts";
import { createMetadataStore } from "../../store/metadata/index.ts";
import { createScanThread } from "./scan-thread.ts";

describe("scan thread", () => {
  let location: TestStore;
  const options = () => ({
    store: location.options,
    blobs: { dataDir: location.options.dataDir },
    registryUrl: "http://127.0.0.1:1",
    toolVersion: "test",
    bounds: { maxPackages: 10, rowsPerTransaction: 5 },
    idleMs: 50,
  });

  before(async () => {
    location = await createTestStore("sqlite");
    const store = createMetadataStore(location.options);
    await store.migrate();
    await store.close();
  });
  after(() => location.drop());

  // Terminating a thread while it loaded the SQLite addon Lading used before `node:sqlite`, or
  // was inside a call into it, aborted the whole process (FATAL ERROR: Error::New
  // napi_get_last_error_info): a server closing just as a scan started took its process down
  // about one time in six.
  it("closes a thread that is still starting without taking the process down", async () => {
    // Each round closes a little later into the thread's start, through opening the store.
    for (let i = 0; i < 30; i++) {
      const thread = createScanThread(options());
      const refused = assert.rejects(
        thread.match({ repoUid: "none", digest: "sha256:00" }),
        /closed|stopped|has no scan/,
      );
      await new Promise((resolve) => setTimeout(resolve, i * 15));
      await thread.close();
      await refused;
    }
  });

  // A match of an image that was never scanned is answered with an error: the thread answered.
  const answered = (thread: ReturnType<typeof createScanThread>) =>
    assert.rejects(thread.match({ repoUid: "none", digest: "sha256:00" }), /has no scan/);

  it("answers, ends when idle (saying so), and starts again for the next call", async () => {
    let idle = 0;
    const thread = createScanThread({ ...options(), onIdle: () => idle++ });
    await answered(thread);
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(idle, 1);
    await answered(thread);
    await thread.close();
  });

  it("a stopped call is refused at once and later calls are still answered", async () => {
    const thread = createScanThread(options());
    const stop = new AbortController();
    const scan = thread.scan({ repoUid: "none", digest: "sha256:00", claim: "c" }, stop.signal);
    stop.abort(new Error("over the time limit"));
    await assert.rejects(scan, /over the time limit/);
    await answered(thread);
    await thread.close();
  });
});
