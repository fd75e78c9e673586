import { basename } from "node:path";
import { CORE_SCHEMA, load } from "js-yaml";
import { type Document, LineCounter, parseDocument } from "yaml";
import { isAdvisoryId } from "./advisory-id.ts";
import { readSchemaVersion, type SchemaVersion } from "./advisory-schema-version.ts";
import { isObject, readAdvisoryEvent } from "./advisory-yaml-event.ts";
import type { AdvisoryRecord, FeedInput, FeedParser, ParsedFeed } from "./feed-records.ts";
import { FeedResult } from "./feed-result.ts";
import { isUpstreamId } from "./upstream-id.ts";

/** The largest document read: the biggest real one is well under 1 MiB. */
export const maxAdvisoryDocumentBytes = 16 * 1024 * 1024;

/**
 * YAML aliases a document may resolve. Real documents use none; the cap stops a "billion
 * laughs" document from expanding into gigabytes.
 */
export const maxAdvisoryYamlAliases = 100;

/** Options of {@link createAdvisoryYamlParser}. */
export interface AdvisoryYamlOptions {
  /** The importer's clock in milliseconds (tests pin it); defaults to Date.now. */
  now?: () => number;
  /** The packageNamespace of every advisory; the documents do not name one. */
  namespace?: string;
}

/**
 * A parser for advisory YAML documents (`<package>.advisories.yaml`, formats §1.1) with its
 * clock and namespace chosen.
 */
export function createAdvisoryYamlParser(options: AdvisoryYamlOptions = {}): FeedParser {
  const now = options.now ?? Date.now;
  const namespace = options.namespace ?? "wolfi";
  return (input) => parse(input, now(), namespace);
}

/**
 * Reads one advisory YAML document into one AdvisoryRecord per advisory, keyed by its CGA id,
 * packageNamespace `wolfi`. A bad advisory is rejected alone, with its line; a document that
 * cannot be read at all (broken YAML, unreadable schema-version) is one rejection.
 */
export const parseAdvisoryYaml: FeedParser = createAdvisoryYamlParser();

/** An anchor or alias token: such documents go through the yaml package, which bounds aliases. */
const ANCHOR = /(^|[\s[{,])[&*][^\s,[\]{}]/m;

function parse(input: FeedInput, now: number, namespace: string): ParsedFeed {
  const result = new FeedResult(input.file);
  const whole = (reason: string, position = "document") => {
    result.reject(input.file, position, reason);
    return result.done();
  };
  if (Buffer.byteLength(input.text, "utf8") > maxAdvisoryDocumentBytes) {
    return whole(`the document is larger than ${maxAdvisoryDocumentBytes} bytes`);
  }
  // js-yaml reads documents about ten times faster than the yaml package, which is kept for
  // what js-yaml cannot do safely: error lines, node positions of rejected entries, and
  // documents with anchors, whose aliases only yaml bounds (maxAliasCount).
  let root: unknown;
  let detailed: { doc: Document; lines: LineCounter } | undefined;
  const detail = () => {
    if (!detailed) {
      const lines = new LineCounter();
      detailed = {
        lines,
        doc: parseDocument(input.text, { lineCounter: lines, prettyErrors: false }),
      };
    }
    return detailed;
  };
  let fast = !ANCHOR.test(input.text);
  if (fast) {
    try {
      root = load(input.text, { schema: CORE_SCHEMA });
    } catch {
      fast = false;
    }
  }
  if (!fast) {
    const { doc, lines } = detail();
    if (doc.errors.length > 0) {
      const error = doc.errors[0];
      const line = lines.linePos(error.pos[0]).line;
      return whole(`not valid YAML: ${error.message.split("\n")[0]}`, `line ${line}`);
    }
    try {
      root = doc.toJS({ maxAliasCount: maxAdvisoryYamlAliases });
    } catch (error) {
      return whole(`the YAML cannot be expanded: ${(error as Error).message}`);
    }
  }
  if (!isObject(root)) return whole("the document is not a mapping");
  const lineOf = (path: (string | number)[]) => {
    const { doc, lines } = detail();
    const node = doc.getIn(path, true) as { range?: [number, number, number] } | undefined;
    return node?.range ? lines.linePos(node.range[0]).line : undefined;
  };
  const at = (path: (string | number)[], label: string) => {
    const line = lineOf(path);
    return line === undefined ? label : `${label} (line ${line})`;
  };
  const pkg = root.package;
  const name = isObject(pkg) ? pkg.name : undefined;
  if (typeof name !== "string" || name === "") {
    return whole("package.name is missing", at(["package"], "package"));
  }
  const fileName = basename(input.file);
  if (fileName.endsWith(".advisories.yaml") && fileName !== `${name}.advisories.yaml`) {
    return whole(`the file name does not match package.name "${name}"`, at(["package"], "package"));
  }
  const version = readSchemaVersion(root["schema-version"]);
  if ("error" in version) {
    result.reject(name, at(["schema-version"], "schema-version"), version.error);
    return result.done();
  }
  const advisories = root.advisories ?? [];
  if (!Array.isArray(advisories)) {
    result.reject(name, at(["advisories"], "advisories"), "advisories must be a list");
    return result.done();
  }
  const seen = new Set<string>();
  advisories.forEach((raw, i) => {
    const record = readAdvisory(raw, { name, namespace, version: version.value, now, seen });
    // Positions are looked up only for rejections: finding a node's line costs more than
    // reading the advisory.
    if (record.error === undefined) result.advisory(record.value);
    else if (record.event === undefined)
      result.reject(name, at(["advisories", i], `advisories[${i}]`), record.error);
    else {
      const path = ["advisories", i, "events", record.event];
      result.reject(name, at(path, `advisories[${i}].events[${record.event}]`), record.error);
    }
  });
  return result.done();
}

interface Context {
  name: string;
  namespace: string;
  version: SchemaVersion;
  now: number;
  seen: Set<string>;
}

function readAdvisory(
  raw: unknown,
  context: Context,
):
  | { value: AdvisoryRecord; error?: undefined }
  | { value?: undefined; error: string; event?: number } {
  if (!isObject(raw)) return { error: "an advisory must be a mapping" };
  const id = raw.id;
  if (typeof id !== "string" || !isAdvisoryId(id)) {
    return { error: `id ${JSON.stringify(id)} is not a CGA id (CGA-xxxx-xxxx-xxxx)` };
  }
  if (context.seen.has(id)) return { error: `${id} appears more than once in the document` };
  context.seen.add(id);
  const aliases = raw.aliases ?? [];
  if (!Array.isArray(aliases)) return { error: `${id}: aliases must be a list` };
  for (const alias of aliases) {
    if (typeof alias !== "string" || !isUpstreamId(alias)) {
      return { error: `${id}: alias ${JSON.stringify(alias)} is not a CVE, GHSA or GO id` };
    }
    if (alias === id) return { error: `${id}: an alias repeats the id` };
  }
  if (new Set(aliases).size !== aliases.length) return { error: `${id}: aliases repeat` };
  const rawEvents = raw.events;
  if (!Array.isArray(rawEvents) || rawEvents.length === 0) {
    return { error: `${id}: an advisory needs at least one event` };
  }
  const events = [];
  for (const [i, rawEvent] of rawEvents.entries()) {
    const event = readAdvisoryEvent(rawEvent, context.version, context.now);
    if (event.error !== undefined) return { error: `${id}: ${event.error}`, event: i };
    events.push(event.value);
  }
  // Files are not always in time order (formats §1.1); sort is stable, so ties keep file order.
  events.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
  const scan = events.findLast((e) => e.detection?.type === "scan/v1")?.detection;
  return {
    value: {
      key: id,
      document: context.name,
      advisoryId: id,
      artifactName: context.name,
      artifactType: "apk",
      artifactArchitecture: "",
      componentName: scan?.componentName ?? "",
      componentType: scan?.componentType ?? "",
      componentLocation: scan?.componentLocation ?? "",
      aliases: [...aliases],
      events,
      packageNamespace: context.namespace,
    },
  };
}
