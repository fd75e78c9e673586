import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { writeFileAtomic } from "./write-file-atomic.ts";

describe("writeFileAtomic", () => {
  const dirs: string[] = [];
  const scratch = async () => {
    const dir = await mkdtemp(join(tmpdir(), "lading-atomic-"));
    dirs.push(dir);
    return dir;
  };
  after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  it("creates the directory (0700) and the file with its mode, and replaces it whole", async () => {
    const dir = join(await scratch(), "nested", "config");
    const file = join(dir, "settings.xml");
    await writeFileAtomic(file, "first", 0o600);
    await writeFileAtomic(file, "second", 0o600);
    assert.equal(await readFile(file, "utf8"), "second");
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    assert.deepEqual(await readdir(dir), ["settings.xml"]);
  });

  it("leaves no temporary file behind when the rename fails", async () => {
    const dir = await scratch();
    const target = join(dir, "taken");
    await mkdir(join(target, "child"), { recursive: true });
    await assert.rejects(writeFileAtomic(target, "text", 0o600));
    assert.deepEqual(await readdir(dir), ["taken"]);
  });
});
