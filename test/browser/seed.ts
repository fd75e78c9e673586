import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { sharedDataDir } from "../../src/versions/testdata/shared-data.ts";
import {
  ensurePublicAdvisoriesGroup,
  type ImportFormatName,
  importFeed,
  importFormats,
} from "../../src/vulnerabilities/index.ts";
import { advisoryYaml } from "../support/advisory-yaml.ts";
import { umociImage, waitFor } from "../support/scan-images.ts";
import type { TestServer } from "../support/server.ts";

const run = promisify(execFile);

/** Markdown that would run script or inject markup if it were rendered as HTML. */
export const hostileMarkdown = [
  "# App",
  "",
  "A **friendly** readme with a [safe link](https://example.com/docs).",
  "",
  "<script>window.__pwned = 'script'</script>",
  '<img src="x" onerror="window.__pwned = \'onerror\'">',
  "[click me](javascript:window.__pwned='link')",
  "![pic](javascript:window.__pwned='image')",
  "<a href=\"javascript:window.__pwned='html-link'\">html link</a>",
  '<iframe src="/"></iframe><style>body{display:none}</style>',
].join("\n");

/** What the console journeys find in the server. */
export interface Seeded {
  org: string;
  repo: string;
  repoUid: string;
  /** Digests `latest` pointed to, oldest first. */
  builds: [string, string];
  /** The vulnerability fixed between the builds, and the one introduced. */
  fixedCve: string;
  newCve: string;
  /** The org's advisory ids for them. */
  fixedAdvisory: string;
  newAdvisory: string;
}

/** A REST call as the organisation owner; throws with the body on failure. */
export async function rest<T = Record<string, unknown>>(
  server: TestServer,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`${server.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${server.org.token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** The operator's vulnerability metadata (NVD, KEV, EPSS), as `lading admin import` writes it. */
async function importMetadata(server: TestServer, cve: string): Promise<void> {
  const dir = sharedDataDir("vulnmeta");
  if (!dir) throw new Error("the shared sample data (shared/data/vulnmeta) is missing");
  const db = server.lading.store.db;
  const parentUid = await ensurePublicAdvisoriesGroup(db);
  const load = (format: ImportFormatName, file: string, text: string) =>
    importFeed(
      db,
      { parentUid, source: format, author: `import:${format}` },
      importFormats[format].parser,
      [{ file, text }],
      {
        finish: false,
      },
    );
  await load(
    "nvd",
    "nvd.json",
    readFileSync(new URL("nvd-cve-2.0-single.json", pathToFileURL(`${dir}/`)), "utf8"),
  );
  await load(
    "kev",
    "kev.json",
    JSON.stringify({
      title: "test",
      catalogVersion: "2025.02.20",
      dateReleased: "2025-02-20T00:00:00.000Z",
      count: 1,
      vulnerabilities: [
        {
          cveID: cve,
          vendorProject: "Example",
          product: "Example",
          vulnerabilityName: "Example flaw",
          dateAdded: "2025-02-01",
          shortDescription: "x",
          requiredAction: "patch",
          dueDate: "2025-02-22",
          knownRansomwareCampaignUse: "Unknown",
          notes: "",
          cwes: ["CWE-352"],
        },
      ],
    }),
  );
  await load(
    "epss",
    "epss.csv",
    `#model_version:v2025.03.14,score_date:2025-03-01T00:00:00+0000\ncve,epss,percentile\n${cve},0.12345,0.95\n`,
  );
}

const installed = (packages: [string, string][]) => ({
  name: "lib/apk/db/installed",
  content: packages.map(([p, v]) => `P:${p}\nV:${v}\nA:x86_64\nL:MIT\no:${p}\n`).join("\n"),
});
const osRelease = { name: "etc/os-release", content: 'ID=wolfi\nVERSION_ID="20230201"\n' };

/**
 * Seeds what the journeys use, the way users make it: the operator's metadata for one CVE;
 * the organisation's advisories through the API; two builds of `acme/app` pushed with skopeo
 * to `:latest` (the second fixes one vulnerability and brings another), scanned by the server
 * itself; a readme of hostile Markdown set through the API.
 */
export async function seedConsole(server: TestServer): Promise<Seeded> {
  const org = "acme";
  const fixedCve = "CVE-2022-1576";
  const newCve = "CVE-2024-0404";
  await importMetadata(server, fixedCve);
  const imported = await rest<{ rejected: string }>(
    server,
    "POST",
    "/vulnerabilities/v2/advisories:import",
    {
      parent: server.org.groupUid,
      format: "IMPORT_FORMAT_ADVISORIES",
      source: "console-test",
      documents: [
        {
          name: "busybox.advisories.yaml",
          content: advisoryYaml("busybox", [
            {
              id: "CGA-3333-cfgh-3333",
              aliases: [fixedCve],
              events: [
                { timestamp: "2024-06-01T08:00:00Z", type: "detection", data: { type: "manual" } },
                {
                  timestamp: "2024-06-03T09:00:00Z",
                  type: "fixed",
                  data: { "fixed-version": "1.36.1-r30" },
                },
              ],
            },
          ]),
        },
        {
          name: "curl.advisories.yaml",
          content: advisoryYaml("curl", [
            {
              id: "CGA-4444-jmpq-4444",
              aliases: [newCve],
              events: [
                { timestamp: "2024-06-01T08:00:00Z", type: "detection", data: { type: "manual" } },
                {
                  timestamp: "2024-06-02T08:00:00Z",
                  type: "true-positive-determination",
                  data: {
                    note: "<script>window.__pwned='note'</script> <img src=x onerror=\"window.__pwned='note-img'\">",
                  },
                },
              ],
            },
          ]),
        },
      ],
    },
  );
  if (imported.rejected !== "0")
    throw new Error(`advisories rejected: ${JSON.stringify(imported)}`);
  const host = new URL(server.lading.registryUrl).host;
  const registryToken = await server.token(server.org.identityUid, {
    audience: server.lading.registryAudience,
  });
  const push = async (tag: string, packages: [string, string][]) => {
    const image = await umociImage(tag, [[osRelease, installed(packages)]]);
    await run("skopeo", [
      "copy",
      "--quiet",
      `oci:${image.layout}:${tag}`,
      `docker://${host}/${org}/app:latest`,
      "--dest-creds",
      `_token:${registryToken}`,
      "--dest-tls-verify=false",
    ]);
    return image.digest;
  };
  const first = await push("v1", [
    ["busybox", "1.36.1-r29"],
    ["musl", "1.2.5-r0"],
  ]);
  const second = await push("v2", [
    ["busybox", "1.36.1-r30"],
    ["musl", "1.2.5-r0"],
    ["curl", "8.5.0-r0"],
  ]);
  const repos = await rest<{ repos: { uid: string }[] }>(
    server,
    "GET",
    `/registry/v2/repos?uidp.descendants_of=${server.org.groupUid}&name=app`,
  );
  const repoUid = repos.repos[0].uid;
  for (const digest of [first, second]) {
    await waitFor(
      `the vulnerability report of ${digest}`,
      async () => {
        const res = await fetch(
          `${server.apiUrl}/registry/v1/repos/${repoUid}/digests/${digest}/vulnreport`,
          {
            headers: { authorization: `Bearer ${server.org.token}` },
          },
        );
        const body = (await res.json()) as { vulnerabilityMatches?: unknown[] };
        return res.ok && (body.vulnerabilityMatches?.length ?? 0) > 0 ? body : undefined;
      },
      60_000,
    );
  }
  await rest(server, "PATCH", `/registry/v2/repos/${repoUid}?updateMask=readme,description`, {
    uid: repoUid,
    readme: hostileMarkdown,
    description: "The application image",
  });
  return {
    org,
    repo: "app",
    repoUid,
    builds: [first, second],
    fixedCve,
    newCve,
    fixedAdvisory: "CGA-3333-cfgh-3333",
    newAdvisory: "CGA-4444-jmpq-4444",
  };
}
