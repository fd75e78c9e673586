import { basename } from "node:path";
import { deriveAdvisoryId, isAdvisoryId } from "./advisory-id.ts";
import { isObject } from "./advisory-yaml-event.ts";
import type { AdvisoryEventRecord, AdvisoryRecord, FeedParser } from "./feed-records.ts";
import { FeedResult } from "./feed-result.ts";
import { normaliseTimestamp } from "./feed-timestamp.ts";
import { productPurl, vexEvent } from "./openvex-event.ts";
import { type PackageUrl, packageName, parsePackageUrl } from "./package-url.ts";

const CONTEXT = "https://openvex.dev/ns";
const VERSION = "v0.2.0";
const IMAGE_TYPES = new Set(["oci", "docker"]);

/** One advisory being built from the statements about its vulnerability and product. */
interface Timeline {
  advisory: AdvisoryRecord;
  /** Events with the statement index, so equal timestamps keep the document's order. */
  events: { event: AdvisoryEventRecord; order: number }[];
  /** The newest statement's subcomponent so far, and that statement's time. */
  component?: { purl: PackageUrl; timestamp: string };
}

/**
 * Reads one OpenVEX v0.2.0 document (formats §1.4). Every statement × product is an event on
 * the advisory `vex:<document>:<vulnerability>:<product purl without version>`; several
 * statements about the same pair are one timeline. The document is part of the key so that
 * two documents stating the same pair never take an entry from each other on re-import; the
 * derived CGA id leaves it out, so both entries share one advisory id. packageNamespace is `openvex`.
 */
export const parseOpenVex: FeedParser = (input) => {
  const result = new FeedResult(input.file);
  let doc: unknown;
  try {
    doc = JSON.parse(input.text);
  } catch (error) {
    result.reject(input.file, "document", `not valid JSON: ${(error as Error).message}`);
    return result.done();
  }
  const refuse = (reason: string) => {
    result.reject(input.file, "document", reason);
    return result.done();
  };
  if (!isObject(doc)) return refuse("an OpenVEX document must be an object");
  const context = doc["@context"];
  if (typeof context !== "string" || !context.startsWith(CONTEXT)) {
    return refuse(`@context ${JSON.stringify(context)} is not OpenVEX`);
  }
  const version = context.slice(CONTEXT.length + 1);
  if (version !== "" && version !== VERSION) {
    return refuse(`OpenVEX ${version} is not the version this Lading reads (${VERSION})`);
  }
  const docId = doc["@id"];
  if (typeof docId !== "string" || docId === "") return refuse("@id is missing");
  // Publishers reuse one @id for many documents (all four DHI samples share theirs), so a
  // document is known by its file name, and by its @id only when read from standard input.
  const id = input.file === "-" ? docId : basename(input.file);
  const statements = doc.statements;
  if (!Array.isArray(statements)) {
    result.reject(id, "statements", "statements must be a list");
    return result.done();
  }
  const documentTime = doc.timestamp === undefined ? undefined : normaliseTimestamp(doc.timestamp);
  const timelines = new Map<string, Timeline>();
  for (const [i, statement] of statements.entries()) {
    const reason = readStatement(statement, i, documentTime, id, timelines, result);
    if (reason !== undefined) result.reject(id, `statements[${i}]`, reason);
  }
  for (const { advisory, events } of timelines.values()) {
    events.sort((a, b) =>
      a.event.timestamp < b.event.timestamp
        ? -1
        : a.event.timestamp > b.event.timestamp
          ? 1
          : a.order - b.order,
    );
    advisory.events = events.map((e) => e.event);
    result.advisory(advisory);
  }
  return result.done();
};

/** Adds one statement's events; returns why the whole statement is refused, if it is. */
function readStatement(
  statement: unknown,
  index: number,
  documentTime: ReturnType<typeof normaliseTimestamp> | undefined,
  document: string,
  timelines: Map<string, Timeline>,
  result: FeedResult,
): string | undefined {
  if (!isObject(statement)) return "a statement must be an object";
  const vulnerability = statement.vulnerability;
  const name = isObject(vulnerability) ? vulnerability.name : undefined;
  if (typeof name !== "string" || name === "") return "the statement names no vulnerability";
  const rawAliases = isObject(vulnerability) ? (vulnerability.aliases ?? []) : [];
  if (!Array.isArray(rawAliases) || rawAliases.some((a) => typeof a !== "string")) {
    return "vulnerability.aliases must be a list of text";
  }
  const products = statement.products;
  if (!Array.isArray(products) || products.length === 0) return "the statement has no products";
  const time =
    statement.timestamp === undefined ? documentTime : normaliseTimestamp(statement.timestamp);
  if (time === undefined) return "neither the statement nor the document has a timestamp";
  if ("error" in time) return time.error;
  // The status is checked once for the statement, not once per product.
  const probe = vexEvent(statement, time.value, "0");
  if ("error" in probe) return probe.error;
  for (const [j, product] of products.entries()) {
    const where = `statements[${index}].products[${j}]`;
    const text = productPurl(product);
    const purl = text === undefined ? undefined : parsePackageUrl(text);
    if (text === undefined || purl === undefined) {
      result.reject(document, where, "the product has no package URL");
      continue;
    }
    const event = vexEvent(statement, time.value, purl.version);
    if ("error" in event) {
      result.reject(document, where, event.error);
      continue;
    }
    const arch = purl.qualifiers.arch ?? "";
    const pair = `vex:${name}:${withoutVersion(text, purl)}${arch ? `?arch=${arch}` : ""}`;
    const key = `vex:${document}:${pair.slice(4)}`;
    let timeline = timelines.get(key);
    if (timeline === undefined) {
      const advisoryId = isAdvisoryId(name) ? name : deriveAdvisoryId(pair);
      timeline = {
        advisory: {
          key,
          document,
          advisoryId,
          artifactName: packageName(purl),
          artifactType:
            purl.type === "apk" ? "apk" : IMAGE_TYPES.has(purl.type) ? "image" : "library",
          artifactArchitecture: arch,
          componentName: "",
          componentType: "",
          componentLocation: "",
          aliases: [],
          events: [],
          packageNamespace: "openvex",
        },
        events: [],
      };
      timelines.set(key, timeline);
    }
    const { advisory } = timeline;
    for (const alias of [name, ...rawAliases]) {
      if (alias !== advisory.advisoryId && !advisory.aliases.includes(alias)) {
        advisory.aliases.push(alias);
      }
    }
    timeline.events.push({ event: event.value, order: index });
    noteComponent(timeline, product, time.value);
  }
  return undefined;
}

/**
 * The component of the newest statement's first subcomponent: an image product names the
 * package inside it that carries the vulnerability.
 */
function noteComponent(timeline: Timeline, product: unknown, timestamp: string): void {
  const subcomponents = isObject(product) ? product.subcomponents : undefined;
  const first = Array.isArray(subcomponents) ? productPurl(subcomponents[0]) : undefined;
  const purl = first === undefined ? undefined : parsePackageUrl(first);
  if (purl === undefined) return;
  if (timeline.component && timeline.component.timestamp > timestamp) return;
  timeline.component = { purl, timestamp };
  timeline.advisory.componentName = packageName(purl);
  timeline.advisory.componentType = purl.type;
}

/** The purl text up to its version: the product whatever version a statement names. */
function withoutVersion(text: string, purl: PackageUrl): string {
  const base = text.split(/[?#]/)[0];
  return purl.version === undefined ? base : base.slice(0, base.lastIndexOf("@"));
}
