import assert from "node:assert/strict";
import { test } from "node:test";
import { parseEpss } from "./epss-parser.ts";
import { parseKev } from "./kev-parser.ts";
import { metadataParsers } from "./metadata-formats.ts";
import { parseNvd } from "./nvd-parser.ts";

test("the metadata formats name their parsers", () => {
  assert.deepEqual(Object.keys(metadataParsers).sort(), ["epss", "kev", "nvd"]);
  assert.equal(metadataParsers.nvd, parseNvd);
  assert.equal(metadataParsers.kev, parseKev);
  assert.equal(metadataParsers.epss, parseEpss);
});
