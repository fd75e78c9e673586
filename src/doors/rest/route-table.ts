import { type DescField, type DescMethod, getOption } from "@bufbuild/protobuf";
import { http } from "../../gen/google/api/annotations_pb.js";
import type { HttpRule } from "../../gen/google/api/http_pb.js";
import type { BoundService } from "../../rpc/index.ts";
import { findField } from "./json-fields.ts";
import {
  matchPathTemplate,
  type PathBindings,
  type PathTemplate,
  parsePathTemplate,
} from "./path-template.ts";
import { resolveFieldPath } from "./query-params.ts";

type UnaryMethod = DescMethod & { methodKind: "unary" };

/** One HTTP binding of a unary method. */
export interface RestRoute {
  httpMethod: string;
  template: PathTemplate;
  method: UnaryMethod;
  bound: BoundService;
  /** The request field the body fills, `*` for the whole request, undefined for no body. */
  body: DescField | "*" | undefined;
  /** The error domain: the first path segment, e.g. `iam`. */
  domain: string;
  /** `pkg.Service/Method`, the form of BoundService.anonymous. */
  fullName: string;
}

/**
 * The outcome of looking a request up: a route with its path bindings, a route whose path
 * segments are not valid percent-encoding, a path served only for other methods, or nothing.
 */
export type RouteLookup =
  | { kind: "match"; route: RestRoute; bindings: PathBindings }
  | { kind: "bad-path"; route: RestRoute; field: string }
  | { kind: "wrong-method"; allowed: string[] }
  | { kind: "none" };

/**
 * The routes of every annotated unary method, most specific first (more literal segments,
 * then a custom verb, then no `**`). Throws at start-up on a template or body that does not fit its request
 * message: that is a contract bug, not a request error.
 */
export function createRouteTable(services: BoundService[]): RestRoute[] {
  const routes: RestRoute[] = [];
  for (const bound of services) {
    for (const method of bound.service.methods) {
      if (method.methodKind !== "unary") continue;
      const rule = getOption(method, http);
      for (const r of [rule, ...rule.additionalBindings]) {
        const route = routeOf(r, method as UnaryMethod, bound);
        if (route) routes.push(route);
      }
    }
  }
  return routes.sort((a, b) => specificity(b) - specificity(a));
}

function specificity(route: RestRoute): number {
  const deep = route.template.segments.at(-1)?.kind === "**" ? 0 : 1;
  // `{uid=**}:test` must win over `{parent=**}` of the same collection, which would otherwise
  // take `…/uid:test` as a parent uid.
  const verb = route.template.verb === undefined ? 0 : 2;
  return route.template.literals * 4 + verb + deep;
}

function routeOf(rule: HttpRule, method: UnaryMethod, bound: BoundService): RestRoute | undefined {
  const pattern = rule.pattern;
  if (pattern.case === undefined) return undefined;
  const [httpMethod, path] =
    pattern.case === "custom"
      ? [pattern.value.kind.toUpperCase(), pattern.value.path]
      : [pattern.case.toUpperCase(), pattern.value];
  const fullName = `${method.parent.typeName}/${method.name}`;
  const parsed = parsePathTemplate(path);
  if (parsed.error !== undefined) throw new Error(`${fullName}: ${parsed.error}`);
  for (const variable of parsed.value.variables) {
    const resolved = resolveFieldPath(method.input, variable.fieldPath.join("."));
    if (resolved.error !== undefined) {
      throw new Error(
        `${fullName}: path variable ${variable.fieldPath.join(".")} ${resolved.error}`,
      );
    }
  }
  let body: RestRoute["body"];
  if (rule.body === "*") body = "*";
  else if (rule.body !== "") {
    body = findField(method.input, rule.body);
    if (!body) throw new Error(`${fullName}: body ${rule.body} is not a field of the request`);
  }
  const domain = path.split("/")[1] ?? "api";
  return { httpMethod, template: parsed.value, method, bound, body, domain, fullName };
}

/** Finds the route for a method and raw path; lists the allowed methods when only the path fits. */
export function lookupRoute(routes: RestRoute[], httpMethod: string, rawPath: string): RouteLookup {
  const allowed = new Set<string>();
  for (const route of routes) {
    const match = matchPathTemplate(route.template, rawPath);
    if (!match) continue;
    if (route.httpMethod !== httpMethod) {
      allowed.add(route.httpMethod);
      continue;
    }
    if (match.error !== undefined) return { kind: "bad-path", route, field: match.error };
    return { kind: "match", route, bindings: match.value };
  }
  return allowed.size > 0 ? { kind: "wrong-method", allowed: [...allowed] } : { kind: "none" };
}
