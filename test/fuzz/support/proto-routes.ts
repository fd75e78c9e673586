import { readdirSync } from "node:fs";
import { type DescMessage, type DescService, getOption } from "@bufbuild/protobuf";
import { reflectionServices } from "../../../src/doors/grpc/index.ts";
import { type PathTemplate, parsePathTemplate } from "../../../src/doors/rest/index.ts";
import { http } from "../../../src/gen/google/api/annotations_pb.js";

const genRoot = new URL("../../../src/gen/lading/", import.meta.url);

/**
 * Every service of the contract, read from the generated descriptors so that a new service
 * is fuzzed without touching the suite.
 */
export async function contractServices(): Promise<DescService[]> {
  const services: DescService[] = [];
  const files = readdirSync(genRoot, { recursive: true, encoding: "utf8" });
  for (const file of files.filter((f) => f.endsWith("_pb.js")).sort()) {
    const module = (await import(new URL(file, genRoot).href)) as Record<string, unknown>;
    for (const value of Object.values(module)) {
      if ((value as { kind?: string } | null)?.kind === "service") {
        services.push(value as DescService);
      }
    }
  }
  return services;
}

/** One google.api.http binding, as the REST door serves it. */
export interface FuzzRoute {
  httpMethod: string;
  template: PathTemplate;
  /** The request message. */
  input: DescMessage;
  /** The message the JSON body fills, undefined when the binding has no body. */
  body: DescMessage | undefined;
  /** `pkg.Service/Method`. */
  fullName: string;
}

/** The REST routes of `services`: every binding of every unary method, additional ones too. */
export function restRoutes(services: DescService[]): FuzzRoute[] {
  const routes: FuzzRoute[] = [];
  for (const service of services) {
    for (const method of service.methods) {
      if (method.methodKind !== "unary") continue;
      const rule = getOption(method, http);
      for (const binding of [rule, ...rule.additionalBindings]) {
        const { pattern } = binding;
        if (pattern.case === undefined) continue;
        const [httpMethod, path] =
          pattern.case === "custom"
            ? [pattern.value.kind.toUpperCase(), pattern.value.path]
            : [pattern.case.toUpperCase(), pattern.value];
        const template = parsePathTemplate(path).value;
        if (!template) throw new Error(`${method.name}: bad template ${path}`);
        let body: DescMessage | undefined;
        if (binding.body === "*") body = method.input;
        else if (binding.body !== "") {
          body = method.input.fields.find((f) => f.name === binding.body)?.message;
        }
        const fullName = `${service.typeName}/${method.name}`;
        routes.push({ httpMethod, template, input: method.input, body, fullName });
      }
    }
  }
  return routes;
}

/** One RPC as the gRPC door serves it. */
export interface RpcMethod {
  /** `/<package>.<Service>/<Method>`. */
  path: string;
  input: DescMessage;
  streaming: boolean;
}

/** Every method of `services` plus server reflection. */
export function rpcMethods(services: DescService[]): RpcMethod[] {
  return [...services, ...reflectionServices].flatMap((service) =>
    service.methods.map((method) => ({
      path: `/${service.typeName}/${method.name}`,
      input: method.input,
      streaming: method.methodKind !== "unary",
    })),
  );
}

/** The path of `template` with each variable replaced by the matching text of `values`. */
export function fillTemplate(template: PathTemplate, values: string[]): string {
  const parts: string[] = [];
  let v = 0;
  for (let i = 0; i < template.segments.length; i++) {
    const variable = template.variables.find((x) => x.start === i);
    if (variable) {
      parts.push(values[v++ % values.length] ?? "x");
      i = variable.end - 1;
      continue;
    }
    const segment = template.segments[i];
    parts.push(segment.kind === "literal" ? segment.text : "x");
  }
  return `/${parts.join("/")}${template.verb === undefined ? "" : `:${template.verb}`}`;
}
