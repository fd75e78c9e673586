import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkPythonFileName } from "./python-file-name.ts";

describe("checkPythonFileName", () => {
  const accepted: [string, "wheel" | "sdist", string, string][] = [
    ["foo_bar-1.0-py3-none-any.whl", "wheel", "foo-bar", "1.0"],
    ["Foo.Bar-1.0rc1-1-cp311-cp311-manylinux_2_28_x86_64.whl", "wheel", "foo-bar", "1.0rc1"],
    ["foo_bar-1.0.0RC1-py3-none-any.whl", "wheel", "foo-bar", "1.0.0rc1"],
    ["foo-bar-1.0.tar.gz", "sdist", "foo-bar", "1.0"],
    ["foo_bar-1.0.post1.zip", "sdist", "foo-bar", "1.0.post1"],
    ["Foo-Bar-2.0.TAR.GZ", "sdist", "foo-bar", "2.0"],
  ];
  for (const [name, kind, project, version] of accepted) {
    it(`accepts ${name} as ${project} ${version}`, () => {
      assert.deepEqual(checkPythonFileName(name, kind, project, version), { value: true });
    });
  }
  const refused: [string, "wheel" | "sdist", RegExp][] = [
    ["foo_bar-1.0-py3-none-any.zip", "wheel", /ends in .whl/],
    ["foo_bar-1.0-any.whl", "wheel", /is not \{name\}/],
    ["foo_bar-1.0-x-py3-none-any.whl", "wheel", /build tag/],
    ["foo_bar-1.0--none-any.whl", "wheel", /empty part/],
    ["other-1.0-py3-none-any.whl", "wheel", /not a file of project foo-bar/],
    ["foo_bar-1.1-py3-none-any.whl", "wheel", /not a file of version 1.0/],
    ["foo-bar-1.0.whl", "sdist", /ends in .tar.gz or .zip/],
    ["foo-bar-1.1.tar.gz", "sdist", /is not \{name\}-\{version\}/],
    ["foobar-1.0.tar.gz", "sdist", /is not \{name\}-\{version\}/],
  ];
  for (const [name, kind, message] of refused) {
    it(`refuses ${name} as a ${kind} of foo-bar 1.0`, () => {
      assert.match(checkPythonFileName(name, kind, "foo-bar", "1.0").error ?? "", message);
    });
  }
});
