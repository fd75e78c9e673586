import { type DescMethod, type DescService, getOption, type JsonObject } from "@bufbuild/protobuf";
import { http } from "../gen/google/api/annotations_pb.js";

/** How one mutating RPC reports its change. */
export interface EventRule {
  /** e.g. dev.lading.iam.group.created.v1 */
  type: string;
  /** The path of the RPC's collection, e.g. /iam/v2/groups: Ce-Source after the API URL. */
  collection: string;
  /** Which message is the event body: the response (creates, updates) or the request (deletes). */
  from: "response" | "request";
  /** The resource, e.g. `group`: groups report to their parent group rather than to themselves. */
  resource: string;
}

/** Method name prefixes of mutating RPCs and the verb of their event type. */
const verbs: Record<string, string> = {
  Create: "created",
  Update: "updated",
  Delete: "deleted",
  Accept: "accepted",
  Import: "imported",
  Restore: "restored",
};

/**
 * The event rule of `method`, or undefined for a read. Derived, not listed: a method is
 * mutating when its HTTP binding is not a GET, its verb is its name's first word, its resource
 * the rest in snake_case, and its domain the proto package's second part, so a new RPC gets its
 * event without anyone remembering to add it. Throws at start-up for a mutating method whose
 * name starts with no known verb: that is a contract gap, not a request error.
 */
export function eventRuleOf(service: DescService, method: DescMethod): EventRule | undefined {
  const rule = getOption(method, http);
  if (rule.pattern.case === undefined || rule.pattern.case === "get") return undefined;
  const path = rule.pattern.case === "custom" ? rule.pattern.value.path : rule.pattern.value;
  const match = /^([A-Z][a-z]+)(\w+)$/.exec(method.name);
  const verb = match && verbs[match[1]];
  if (!match || !verb) {
    throw new Error(
      `${service.typeName}/${method.name}: a mutating method needs an event verb (event-rules.ts) or a place in withOutbox's skip list`,
    );
  }
  const domain = service.typeName.split(".")[1];
  const resource = snakeCase(match[2]);
  return {
    type: `dev.lading.${domain}.${resource}.${verb}.v1`,
    collection: collectionOf(path),
    from: verb === "deleted" ? "request" : "response",
    resource,
  };
}

/** The event rules of every mutating method of `service` not in `skip`, by local method name. */
export function eventRulesOf(
  service: DescService,
  skip: ReadonlySet<string> = new Set(),
): Map<string, EventRule> {
  const rules = new Map<string, EventRule>();
  for (const method of service.methods) {
    if (method.methodKind !== "unary" || skip.has(`${service.typeName}/${method.name}`)) continue;
    const rule = eventRuleOf(service, method);
    if (rule) rules.set(method.localName, rule);
  }
  return rules;
}

/** `/iam/v2/groups/{parent=**}` → `/iam/v2/groups`; `/x/v2/y:accept` → `/x/v2/y`. */
function collectionOf(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split("/").slice(1)) {
    if (segment.startsWith("{")) break;
    const colon = segment.indexOf(":");
    segments.push(colon < 0 ? segment : segment.slice(0, colon));
    if (colon >= 0) break;
  }
  return `/${segments.filter((s) => s !== "").join("/")}`;
}

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c, i: number) => (i === 0 ? "" : "_") + c.toLowerCase());
}

/**
 * The uid an event is about: the body's own uid, else that of the resource the body carries
 * (AcceptGroupInvite answers with the role binding it made), else the group a request names
 * (AcceptTerms, ImportAdvisories act on a group).
 */
export function subjectOf(request: JsonObject, response: JsonObject, rule: EventRule): string {
  const body = rule.from === "request" ? request : response;
  if (typeof body.uid === "string" && body.uid !== "") return body.uid;
  for (const value of Object.values(response)) {
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const uid = (value as JsonObject).uid;
      if (typeof uid === "string" && uid !== "") return uid;
    }
  }
  for (const key of ["uid", "parent", "group"]) {
    const value = request[key];
    if (typeof value === "string" && value !== "") return value;
  }
  return "";
}
