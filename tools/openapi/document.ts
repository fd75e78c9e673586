import {
  type DescExtension,
  type DescField,
  type DescMessage,
  type DescMethod,
  type FileRegistry,
  getExtension,
  hasExtension,
  type JsonObject,
  toJson,
} from "@bufbuild/protobuf";
import { getComments } from "@bufbuild/protoplugin";
import { parsePathTemplate } from "../../src/doors/rest/path-template.ts";
import { mergePathItems } from "./path-items.ts";
import { messageRef, reachableSchemas, type Schema, valueSchema } from "./schemas.ts";

/** One HTTP binding of a method, as `google.api.http` states it. */
interface Binding {
  verb: string;
  template: string;
  body: string;
}

const verbs = ["get", "put", "post", "delete", "patch"] as const;

function bindingsOf(rule: JsonObject): Binding[] {
  const out: Binding[] = [];
  const one = (r: JsonObject) => {
    for (const verb of verbs) {
      if (typeof r[verb] === "string") {
        out.push({ verb, template: r[verb] as string, body: (r.body as string) ?? "" });
      }
    }
  };
  one(rule);
  for (const extra of (rule.additionalBindings as JsonObject[] | undefined) ?? []) one(extra);
  return out;
}

/** `/iam/v2/roles/{role.uid=**}` → the OpenAPI path and its variables' field paths. */
function openApiPath(template: string): { path: string; variables: string[] } {
  const parsed = parsePathTemplate(template);
  if (parsed.error !== undefined) throw new Error(parsed.error);
  const { segments, variables, verb } = parsed.value;
  const parts: string[] = [];
  for (let i = 0; i < segments.length; ) {
    const variable = variables.find((v) => v.start === i);
    if (variable) {
      parts.push(`{${variable.fieldPath.join(".")}}`);
      i = variable.end;
      continue;
    }
    const segment = segments[i++];
    parts.push(segment.kind === "literal" ? segment.text : segment.kind);
  }
  return {
    path: `/${parts.join("/")}${verb ? `:${verb}` : ""}`,
    variables: variables.map((v) => v.fieldPath.join(".")),
  };
}

/** A request field a transcoder fills from the query string: scalars, enums, repeated ones. */
function queryParameters(message: DescMessage, bound: Set<string>, prefix = ""): Schema[] {
  const out: Schema[] = [];
  for (const field of message.fields) {
    const name = prefix + field.name;
    if (bound.has(name)) continue;
    if (field.fieldKind === "message" && !field.message.typeName.startsWith("google.protobuf.")) {
      out.push(...queryParameters(field.message, bound, `${name}.`));
      continue;
    }
    if (field.fieldKind === "map" || (field.fieldKind === "list" && field.listKind === "message"))
      continue;
    out.push(parameter(name, "query", field, false));
  }
  return out;
}

function parameter(name: string, where: string, field: DescField, required: boolean): Schema {
  const schema = valueSchema(field);
  const prefix = field.enum?.sharedPrefix?.toUpperCase();
  // The REST door also takes an enum's value without its prefix, in any case (docs/api.md).
  const lenient = prefix ? `Also takes the value without ${prefix}, in any case.` : "";
  const comment = [getComments(field).leading?.trim(), lenient].filter(Boolean).join(" ");
  return {
    name,
    in: where,
    required,
    ...(comment ? { description: comment } : {}),
    schema,
    ...(field.fieldKind === "list" ? { explode: true } : {}),
  };
}

function fieldAt(message: DescMessage, path: string): DescField | undefined {
  let current: DescMessage | undefined = message;
  let field: DescField | undefined;
  for (const part of path.split(".")) {
    field = current?.fields.find((f) => f.name === part);
    current = field?.message;
  }
  return field;
}

function operation(method: DescMethod, binding: Binding, authorization: Schema): [string, Schema] {
  const { path, variables } = openApiPath(binding.template);
  const input = method.input;
  const bound = new Set(variables);
  const parameters: Schema[] = variables.map((v) => {
    const field = fieldAt(input, v);
    if (!field) throw new Error(`${method.parent.typeName}/${method.name}: no field ${v}`);
    const p = parameter(v, "path", field, true);
    return {
      ...p,
      description: `${v}: a uid, its / separators sent as they are (not as %2F).`,
    };
  });
  let requestBody: Schema | undefined;
  if (binding.body === "*") {
    requestBody = {
      required: true,
      content: { "application/json": { schema: messageRef(input) } },
    };
  } else {
    if (binding.body !== "") {
      const field = fieldAt(input, binding.body);
      if (!field?.message) throw new Error(`${method.name}: body ${binding.body} is not a message`);
      bound.add(binding.body);
      requestBody = {
        required: true,
        content: { "application/json": { schema: messageRef(field.message) } },
      };
    }
    parameters.push(...queryParameters(input, bound));
  }
  const comment = getComments(method).leading?.trim() ?? "";
  const service = method.parent;
  return [
    path,
    {
      operationId: `${service.name}_${method.name}`,
      tags: [service.name],
      summary: comment.split("\n")[0],
      ...(comment ? { description: comment } : {}),
      "x-lading-method": `${service.typeName}/${method.name}`,
      "x-lading-capabilities": authorization.capabilities ?? [],
      ...(authorization.grants ? { "x-lading-grants": true } : {}),
      parameters,
      ...(requestBody ? { requestBody } : {}),
      responses: {
        "200": {
          description: "OK",
          content: { "application/json": { schema: messageRef(method.output) } },
        },
        default: {
          description: "An error: google.rpc.Status with details (ErrorInfo, BadRequest, …)",
          content: {
            "application/json": { schema: { $ref: "#/components/schemas/google.rpc.Status" } },
          },
        },
      },
    },
  ];
}

/** google.rpc.Status in proto3 JSON; its proto is not an input of this plugin's run. */
const statusSchema: Schema = {
  type: "object",
  description: "An error: the gRPC status code, a message, and typed details.",
  properties: {
    code: { type: "integer", format: "int32", description: "google.rpc.Code" },
    message: { type: "string" },
    details: {
      type: "array",
      items: { type: "object", properties: { "@type": { type: "string" } }, required: ["@type"] },
    },
  },
  required: ["code", "message"],
};

/**
 * The OpenAPI 3.1 document of every REST route: each `google.api.http` binding of each service
 * in a `lading.*` package, with proto3 JSON schemas for its messages.
 */
export function openApiDocument(registry: FileRegistry): Schema {
  const http = registry.getExtension("google.api.http") as DescExtension | undefined;
  if (!http) throw new Error("google/api/annotations.proto is not among the inputs");
  const authz = registry.getExtension("lading.iam.v2.authorization") as DescExtension | undefined;
  const paths: Record<string, Record<string, Schema>> = {};
  const roots: DescMessage[] = [];
  const services = [...registry]
    .filter((d) => d.kind === "service" && d.typeName.startsWith("lading."))
    .sort((a, b) => a.typeName.localeCompare(b.typeName));
  for (const service of services) {
    if (service.kind !== "service") continue;
    for (const method of service.methods) {
      const options = method.proto.options;
      if (!options || !hasExtension(options, http)) continue;
      const rule = toJson(http.message as DescMessage, getExtension(options, http) as never, {
        alwaysEmitImplicit: false,
      }) as JsonObject;
      const authorization =
        authz && hasExtension(options, authz)
          ? (toJson(authz.message as DescMessage, getExtension(options, authz) as never) as Schema)
          : {};
      for (const binding of bindingsOf(rule)) {
        const [path, op] = operation(method, binding, authorization);
        paths[path] ??= {};
        paths[path][binding.verb] = op;
        roots.push(method.input, method.output);
      }
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Lading API",
      version: "v2",
      description:
        "The REST/JSON door of the Lading API, generated from its protos. The same methods are served over gRPC, gRPC-Web and Connect.",
    },
    security: [{ bearer: [] }],
    tags: services.map((s) => ({
      name: s.kind === "service" ? s.name : "",
      description: (s.kind === "service" && getComments(s).leading?.trim()) || undefined,
    })),
    paths: mergePathItems(paths),
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
      schemas: { ...reachableSchemas(roots), "google.rpc.Status": statusSchema },
    },
  };
}
