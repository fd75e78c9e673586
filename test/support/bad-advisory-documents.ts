import type { AdvisoryDocument } from "./advisory-documents.ts";

const GOOD = `  - id: CGA-2222-3333-4444
    aliases:
      - CVE-2024-1111
    events:
      - timestamp: 2024-01-02T03:04:05Z
        type: detection
        data:
          type: manual
`;

/** A document of one good advisory followed by `bad` (YAML text of one list item). */
function withBad(name: string, bad: string, version = "2.0.2"): AdvisoryDocument {
  const text = `schema-version: ${version}\n\npackage:\n  name: ${name}\n\nadvisories:\n${GOOD}${bad}`;
  return { name, text };
}

/**
 * Malformed advisory documents, one fault each (test/fixtures/advisories-bad). The parser
 * tests name the exact rejection each one must produce.
 */
export function badAdvisoryDocuments(): AdvisoryDocument[] {
  const advisory = (id: string, aliases: string, events: string) =>
    `  - id: ${id}\n    aliases:\n${aliases}    events:\n${events}`;
  const cve = "      - CVE-2024-2222\n";
  const fixed =
    "      - timestamp: 2024-02-01T00:00:00Z\n        type: fixed\n        data:\n          fixed-version: 1.2.3-r1\n";
  return [
    {
      name: "schema-three",
      text: "schema-version: 3\n\npackage:\n  name: schema-three\n\nadvisories: []\n",
    },
    {
      name: "schema-one",
      text: 'schema-version: "1"\n\npackage:\n  name: schema-one\n\nadvisories: []\n',
    },
    {
      name: "broken-yaml",
      text: `schema-version: 2.0.2\npackage:\n  name: broken-yaml\nadvisories:\n${GOOD}  - id: [unclosed\n`,
    },
    withBad("bad-cga-id", advisory("CGA-aaaa-bbbb-cccc", cve, fixed)),
    withBad("bad-alias", advisory("CGA-5555-6666-7777", "      - CVE-24-1\n", fixed)),
    withBad(
      "future-timestamp",
      advisory("CGA-5555-6666-7777", cve, fixed.replace("2024-02-01", "2999-02-01")),
    ),
    withBad(
      "unknown-event-type",
      advisory(
        "CGA-5555-6666-7777",
        cve,
        "      - timestamp: 2024-02-01T00:00:00Z\n        type: reopened\n",
      ),
    ),
    withBad(
      "missing-pending-note",
      advisory(
        "CGA-5555-6666-7777",
        cve,
        "      - timestamp: 2024-02-01T00:00:00Z\n        type: pending-upstream-fix\n        data: {}\n",
      ),
    ),
    withBad("empty-events", `  - id: CGA-5555-6666-7777\n    aliases:\n${cve}    events: []\n`),
    withBad("duplicate-id", advisory("CGA-2222-3333-4444", cve, fixed)),
    withBad(
      "pending-too-old",
      advisory(
        "CGA-5555-6666-7777",
        cve,
        "      - timestamp: 2024-02-01T00:00:00Z\n        type: pending-upstream-fix\n        data:\n          note: upstream\n",
      ),
      "2",
    ),
    withBad(
      "scan-too-old",
      advisory(
        "CGA-5555-6666-7777",
        cve,
        "      - timestamp: 2024-02-01T00:00:00Z\n        type: detection\n        data:\n          type: scan/v1\n          data:\n            componentName: x\n",
      ),
      "2.0.1",
    ),
  ];
}
