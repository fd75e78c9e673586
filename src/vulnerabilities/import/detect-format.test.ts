import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { sharedDataDir } from "../../versions/testdata/shared-data.ts";
import { detectFormat } from "./detect-format.ts";

test("detects each format from its name or its first keys", () => {
  assert.equal(detectFormat("a/zlib.advisories.yaml", "schema-version: 2"), "advisories");
  assert.equal(detectFormat("epss_scores-2025-01-01.csv.gz", ""), "epss");
  assert.equal(detectFormat("x.json", '{"@context": "https://openvex.dev/ns/v0.2.0"}'), "openvex");
  assert.equal(detectFormat("x.json", '{"resultsPerPage": 1, "format": "NVD_CVE"}'), "nvd");
  assert.equal(detectFormat("x.json", '{"title": "KEV", "catalogVersion": "2025.02.19"}'), "kev");
  assert.equal(
    detectFormat("x.json", '{"schema_version": "1.4.0", "id": "GHSA-2345-6789-cfgh"}'),
    "osv",
  );
  assert.equal(
    detectFormat("x.json", '{"id": "GO-2024-0001", "modified": "2024-01-01T00:00:00Z"}'),
    "osv",
  );
  assert.equal(detectFormat("x.json", '{"hello": "world"}'), undefined);
  assert.equal(detectFormat("notes.txt", "hello"), undefined);
});

test("detects every shared sample feed", () => {
  const root = sharedDataDir("");
  if (!root) throw new Error("the shared sample data is missing");
  const found: Record<string, number> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(json|csv)$/.test(name)) {
        const format = detectFormat(path, readFileSync(path, "utf8")) ?? "none";
        found[format] = (found[format] ?? 0) + 1;
      }
    }
  };
  walk(root);
  assert.deepEqual(found, { epss: 1, kev: 1, nvd: 2, openvex: 4, osv: 115 });
});
