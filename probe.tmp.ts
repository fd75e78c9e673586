import { performance } from "node:perf_hooks";
import { ensurePublicAdvisoriesGroup, importFeed, importFormats } from "./src/vulnerabilities/index.ts";
import { generateAdvisoryDocuments } from "./test/support/advisory-documents.ts";
import { startTestServer } from "./test/support/server.ts";
const kind = (process.argv[2] ?? "sqlite") as "sqlite" | "postgres";
const server = await startTestServer(kind);
const docs = generateAdvisoryDocuments(100000, 7);
const db = server.lading.store.db;
const parentUid = await ensurePublicAdvisoriesGroup(db);
let t = performance.now();
await importFeed(db, { parentUid, source: "b", author: "b" }, importFormats.advisories.parser, docs.map((d) => ({ file: `${d.name}.advisories.yaml`, text: d.text })), { finish: true });
console.log("import", (performance.now() - t).toFixed(0));
const headers = { authorization: `Bearer ${server.org.token}` };
for (const q of [`artifact_names=${docs[0].name}`, "query=cve-2021", `artifact_names=${docs[0].name}&query=cve`, "query=cve-&skip=50000", "skip=50000", "", "order_by=name&skip=50000"]) {
  const url = `${server.apiUrl}/vulnerabilities/v2/advisories?page_size=50&${q}`;
  const times = [];
  let total = "";
  for (let i = 0; i < 20; i++) { t = performance.now(); const r = await fetch(url, { headers }); const j = await r.json() as any; total = j.totalCount; times.push(performance.now() - t); }
  times.sort((a, b) => a - b);
  console.log(q.padEnd(50), "total", total, "p50", times[10].toFixed(1), "max", times[19].toFixed(1));
}
await server.close();
