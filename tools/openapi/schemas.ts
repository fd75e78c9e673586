import { type DescEnum, type DescField, type DescMessage, ScalarType } from "@bufbuild/protobuf";
import { getComments } from "@bufbuild/protoplugin";

/** A JSON Schema object as OpenAPI 3.1 embeds it. */
export type Schema = Record<string, unknown>;

/** `#/components/schemas/<full name>`: one schema per message and enum. */
export function ref(typeName: string): Schema {
  return { $ref: `#/components/schemas/${typeName}` };
}

const int64 = { type: "string", pattern: "^-?[0-9]+$", description: "a 64-bit integer as text" };
const uint64 = { type: "string", pattern: "^[0-9]+$", description: "a 64-bit integer as text" };
const scalars: Record<ScalarType, Schema> = {
  [ScalarType.DOUBLE]: { type: "number" },
  [ScalarType.FLOAT]: { type: "number" },
  [ScalarType.INT64]: int64,
  [ScalarType.SINT64]: int64,
  [ScalarType.SFIXED64]: int64,
  [ScalarType.UINT64]: uint64,
  [ScalarType.FIXED64]: uint64,
  [ScalarType.INT32]: { type: "integer", format: "int32" },
  [ScalarType.SINT32]: { type: "integer", format: "int32" },
  [ScalarType.SFIXED32]: { type: "integer", format: "int32" },
  [ScalarType.UINT32]: { type: "integer", format: "int64", minimum: 0, maximum: 4294967295 },
  [ScalarType.FIXED32]: { type: "integer", format: "int64", minimum: 0, maximum: 4294967295 },
  [ScalarType.BOOL]: { type: "boolean" },
  [ScalarType.STRING]: { type: "string" },
  [ScalarType.BYTES]: { type: "string", contentEncoding: "base64" },
};

/** The proto3 JSON forms of the well-known types the contract uses. */
const wellKnown: Record<string, Schema> = {
  "google.protobuf.Timestamp": { type: "string", format: "date-time" },
  "google.protobuf.Duration": { type: "string", pattern: "^-?[0-9]+(\\.[0-9]+)?s$" },
  "google.protobuf.FieldMask": {
    type: "string",
    description: "comma-separated field paths",
  },
  "google.protobuf.Struct": { type: "object", additionalProperties: true },
  "google.protobuf.Value": {},
  "google.protobuf.ListValue": { type: "array", items: {} },
  "google.protobuf.Empty": { type: "object" },
  "google.protobuf.Any": {
    type: "object",
    properties: { "@type": { type: "string" } },
    required: ["@type"],
    additionalProperties: true,
  },
  "google.protobuf.StringValue": { type: ["string", "null"] },
  "google.protobuf.BoolValue": { type: ["boolean", "null"] },
  "google.protobuf.Int32Value": { type: ["integer", "null"], format: "int32" },
  "google.protobuf.Int64Value": { type: ["string", "null"] },
  "google.protobuf.UInt32Value": { type: ["integer", "null"] },
  "google.protobuf.UInt64Value": { type: ["string", "null"] },
  "google.protobuf.DoubleValue": { type: ["number", "null"] },
  "google.protobuf.FloatValue": { type: ["number", "null"] },
  "google.protobuf.BytesValue": { type: ["string", "null"], contentEncoding: "base64" },
};

/** The schema of a message type as it appears inside another: a reference, or a WKT inline. */
export function messageRef(message: DescMessage): Schema {
  return wellKnown[message.typeName] ?? ref(message.typeName);
}

function described(schema: Schema, comment: string | undefined): Schema {
  const text = comment?.trim();
  return text ? { ...schema, description: text } : schema;
}

/** One element of a field: its scalar, enum or message, whatever repeats or maps it. */
function elementSchema(element: {
  scalar?: ScalarType;
  enum?: DescEnum;
  message?: DescMessage;
}): Schema {
  if (element.message) return messageRef(element.message);
  if (element.enum) return ref(element.enum.typeName);
  return scalars[element.scalar as ScalarType];
}

/** One field's value schema, as a property or a query parameter carries it. */
export function valueSchema(field: DescField): Schema {
  if (field.fieldKind === "list") return { type: "array", items: elementSchema(field) };
  if (field.fieldKind === "map") {
    return { type: "object", additionalProperties: elementSchema(field) };
  }
  return elementSchema(field);
}

/** A field as a property: its schema and its leading comment. */
export function fieldSchema(field: DescField): Schema {
  const schema = valueSchema(field);
  const comment = getComments(field).leading;
  // A $ref with siblings is allowed in 3.1; keep the comment next to it.
  return described(schema, comment);
}

/** A message as proto3 JSON: lowerCamel keys, every field optional on the wire. */
export function messageSchema(message: DescMessage): Schema {
  const properties: Record<string, Schema> = {};
  for (const field of message.fields) properties[field.jsonName] = fieldSchema(field);
  return described(
    { type: "object", properties, additionalProperties: false },
    getComments(message).leading,
  );
}

/** An enum by value name, as proto3 JSON writes it. */
export function enumSchema(desc: DescEnum): Schema {
  return described(
    { type: "string", enum: desc.values.map((v) => v.name) },
    getComments(desc).leading,
  );
}

/** Every message and enum reachable from `roots`, keyed by full name (WKTs stay inline). */
export function reachableSchemas(roots: DescMessage[]): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  const visit = (message: DescMessage) => {
    if (wellKnown[message.typeName] || out[message.typeName]) return;
    out[message.typeName] = messageSchema(message);
    for (const field of message.fields) {
      if (field.enum && !out[field.enum.typeName])
        out[field.enum.typeName] = enumSchema(field.enum);
      if (field.message) visit(field.message);
    }
  };
  for (const root of roots) visit(root);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}
