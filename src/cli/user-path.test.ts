import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { underNpm, userPath } from "./user-path.ts";

describe("userPath", () => {
  it("drops what npx put in front of the shell's PATH", () => {
    const npx = [
      "/srv/ada/.npm/_npx/7075c3f6b6f872ef/node_modules/.bin",
      "/srv/ada/lading/node_modules/.bin",
      "/srv/ada/node_modules/.bin",
      "/node_modules/.bin",
      "/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin",
      "/srv/ada/project/node_modules/.bin",
      "/usr/bin",
      "/bin",
    ].join(":");
    assert.equal(
      userPath({ PATH: npx, npm_lifecycle_event: "npx" }),
      // A node_modules/.bin the user put on PATH themselves stays.
      "/srv/ada/project/node_modules/.bin:/usr/bin:/bin",
    );
  });

  it("drops leading node_modules/.bin folders when npm's shim is not there", () => {
    const env = { PATH: "/a/node_modules/.bin:/node_modules/.bin:/usr/bin", npm_config_cache: "x" };
    assert.equal(userPath(env), "/usr/bin");
  });

  it("keeps the PATH of a process npm did not start, less relative entries", () => {
    const env = { PATH: "/a/node_modules/.bin::.:bin:/usr/bin" };
    assert.equal(underNpm(env), false);
    assert.equal(userPath(env), "/a/node_modules/.bin:/usr/bin");
    assert.equal(userPath({}), "");
  });
});
