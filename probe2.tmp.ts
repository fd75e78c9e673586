import { sql } from "kysely";
import { ensurePublicAdvisoriesGroup, importFeed, importFormats } from "./src/vulnerabilities/index.ts";
import { generateAdvisoryDocuments } from "./test/support/advisory-documents.ts";
import { startTestServer } from "./test/support/server.ts";
const server = await startTestServer("sqlite");
const docs = generateAdvisoryDocuments(30000, 7);
const db = server.lading.store.db;
const p = await ensurePublicAdvisoriesGroup(db);
await importFeed(db, { parentUid: p, source: "b", author: "b" }, importFormats.advisories.parser, docs.map((d) => ({ file: `${d.name}.advisories.yaml`, text: d.text })), { finish: true });
const o = server.org.groupUid;
const vis = sql`((uid = ${o}) or (uid > ${o + "/"} and uid < ${o + "0"}) or (uid = ${p}) or (uid > ${p + "/"} and uid < ${p + "0"}))`;
for (const q of [
  sql`explain query plan select uid, advisory_id from advisories where ${vis} and withdrawn_time is null order by advisory_id, uid limit 51 offset 50000`,
  sql`explain query plan select count(*) from advisories where ${vis} and withdrawn_time is null and instr(search_text, 'cve-2021') > 0`,
  sql`explain query plan select uid, advisory_id from advisories where ${vis} and withdrawn_time is null and instr(search_text, 'cve-2021') > 0 order by advisory_id, uid limit 51`,
  sql`explain query plan select uid, advisory_id from advisories where ${vis} and withdrawn_time is null and artifact_name in ('git') order by advisory_id, uid limit 51`,
]) {
  const r = await q.execute(db);
  console.log(r.rows.map((x: any) => x.detail).join(" | "));
}
await server.close();
