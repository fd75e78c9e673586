import { type DescField, type DescMessage, ScalarType } from "@bufbuild/protobuf";
import fc from "fast-check";
import { nastyText, uidLike } from "./nasty-inputs.ts";

/** JSON number texts no JavaScript number holds exactly, or at all. */
const numberTexts = [
  "0",
  "-1",
  "1.5",
  "-0",
  "1e2",
  "2147483648",
  "-2147483649",
  "9223372036854775808",
  "18446744073709551616",
  "1e400",
  "-1e400",
  "1e-400",
  "123456789012345678901234567890",
  '"12"',
  '"1e3"',
  '"abc"',
  '"NaN"',
  '"Infinity"',
];

/** A value of any wrong type, from tiny to a few thousand levels deep. */
const wrongValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("null", "{}", "[]", '""', "true", "0", '{"":""}', "[null]"),
  fc.json({ maxDepth: 3 }),
  fc.integer({ min: 2, max: 5000 }).map((n) => `${"[".repeat(n)}${"]".repeat(n)}`),
);

/** Shared settings of a generation: uids to use, how deep to go. */
interface Context {
  known: string[];
  depth: number;
}

function scalarText(field: DescField & { scalar: ScalarType }, ctx: Context): fc.Arbitrary<string> {
  switch (field.scalar) {
    case ScalarType.STRING: {
      const looksUid = /uid|parent|group|of$/.test(field.name);
      return (looksUid ? fc.oneof(uidLike(ctx.known), nastyText) : nastyText).map((s) =>
        JSON.stringify(s),
      );
    }
    case ScalarType.BOOL:
      return fc.constantFrom("true", "false", '"true"', "1");
    case ScalarType.BYTES:
      return fc.oneof(fc.base64String({ maxLength: 40 }), nastyText).map((s) => JSON.stringify(s));
    default:
      return fc.oneof(fc.constantFrom(...numberTexts), fc.double().map(numberText));
  }
}

const numberText = (n: number) => (Number.isFinite(n) ? String(n) : JSON.stringify(String(n)));

function wellKnown(message: DescMessage): fc.Arbitrary<string> | undefined {
  switch (message.typeName) {
    case "google.protobuf.Timestamp":
      return fc
        .oneof(
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          fc.constantFrom("2024-02-30T00:00:00Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:60Z"),
          nastyText,
        )
        .map((s) => JSON.stringify(s));
    case "google.protobuf.FieldMask":
      return fc
        .oneof(fc.constantFrom("name", "uid,name", "a.b.c", ",,", "description"), nastyText)
        .map((s) => JSON.stringify(s));
    case "google.protobuf.Duration":
      return fc.constantFrom('"1s"', '"-1s"', '"1e9s"', '"s"', "1");
    default:
      return undefined;
  }
}

function singleText(field: DescField, ctx: Context): fc.Arbitrary<string> {
  const kind = field.fieldKind === "list" ? field.listKind : field.fieldKind;
  if (kind === "enum" && field.enum) {
    const names = field.enum.values.map((v) => JSON.stringify(v.name));
    return fc.oneof(fc.constantFrom(...names, "99", "-1", '"NOPE"'), nastyText.map(JSON.stringify));
  }
  if (kind === "message" && field.message) {
    const known = wellKnown(field.message);
    if (known) return known;
    if (ctx.depth >= 2) return wrongValue;
    return objectText(field.message, { ...ctx, depth: ctx.depth + 1 });
  }
  if (kind === "scalar" && field.scalar !== undefined) {
    return scalarText(field as DescField & { scalar: ScalarType }, ctx);
  }
  return wrongValue;
}

function fieldText(field: DescField, ctx: Context): fc.Arbitrary<string> {
  const right =
    field.fieldKind === "list"
      ? fc.array(singleText(field, ctx), { maxLength: 4 }).map((xs) => `[${xs.join(",")}]`)
      : field.fieldKind === "map"
        ? fc
            .dictionary(nastyText, fc.constantFrom('"v"', "1", "true", "{}", "null"), {
              maxKeys: 3,
            })
            .map((d) => `{${Object.entries(d).map(([k, v]) => `${JSON.stringify(k)}:${v}`)}}`)
        : singleText(field, ctx);
  return fc.oneof({ arbitrary: right, weight: 4 }, { arbitrary: wrongValue, weight: 1 });
}

/**
 * A JSON object text for `message`: a random subset of its fields under their JSON or proto
 * names, values of the right type mostly, plus unknown and duplicated keys now and then.
 */
export function objectText(message: DescMessage, ctx: Context): fc.Arbitrary<string> {
  const members = message.fields.map((field) =>
    fc
      .tuple(fc.constantFrom(field.jsonName, field.name), fieldText(field, ctx))
      .map(([name, value]) => `${JSON.stringify(name)}:${value}`),
  );
  const extra = fc.tuple(nastyText, wrongValue).map(([k, v]) => `${JSON.stringify(k)}:${v}`);
  const member = members.length > 0 ? fc.oneof(...members, extra) : extra;
  return fc.array(member, { maxLength: 6 }).map((parts) => `{${parts.join(",")}}`);
}

/** A request body for `message`: mostly JSON of the right shape, sometimes anything but. */
export function jsonBody(message: DescMessage, known: string[]): fc.Arbitrary<Buffer> {
  const text = (a: fc.Arbitrary<string>) => a.map((s) => Buffer.from(s, "utf8"));
  const fieldName = message.fields[0]?.jsonName ?? "name";
  const invalidUtf8 = fc
    .constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80])
    .map((bad) =>
      Buffer.concat([Buffer.from(`{"${fieldName}":"a`), Buffer.from(bad), Buffer.from('"}')]),
    );
  return fc.oneof(
    { arbitrary: text(objectText(message, { known, depth: 0 })), weight: 12 },
    { arbitrary: text(fc.json()), weight: 2 },
    {
      arbitrary: text(
        fc
          .tuple(fc.integer({ min: 100, max: 10_000 }), fc.constantFrom("[", '{"a":'))
          .map(([n, open]) => {
            const close = open === "[" ? "]" : "}";
            return `{"${fieldName}":${open.repeat(n)}${open === "[" ? "" : "1"}${close.repeat(n)}}`;
          }),
      ),
      weight: 1,
    },
    {
      arbitrary: text(
        fc.integer({ min: 1000, max: 10_000 }).map((n) => `${"[".repeat(n)}${"]".repeat(n)}`),
      ),
      weight: 1,
    },
    {
      arbitrary: text(
        fc.tuple(nastyText, nastyText).map(([a, b]) => {
          const key = JSON.stringify(fieldName);
          return `{${key}:${JSON.stringify(a)},${key}:${JSON.stringify(b)}}`;
        }),
      ),
      weight: 1,
    },
    { arbitrary: invalidUtf8, weight: 1 },
    { arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)), weight: 1 },
    {
      arbitrary: text(fc.constantFrom("", " ", "{", "}", "nul", "{name:1}", "'x'", "\ufeff{}")),
      weight: 1,
    },
    {
      arbitrary: fc
        .integer({ min: 1024 * 1024 - 16, max: 1024 * 1024 + 4096 })
        .map((n) => Buffer.from(`{"${fieldName}":"${"a".repeat(n)}"}`)),
      weight: 1,
    },
  );
}

/** A query string for `message`: its fields (dotted for nested ones), unknown names, repeats. */
export function queryText(message: DescMessage, known: string[]): fc.Arbitrary<string> {
  const names: string[] = [];
  for (const field of message.fields) {
    names.push(field.name, field.jsonName);
    if (field.fieldKind === "message") {
      for (const sub of field.message.fields) names.push(`${field.name}.${sub.name}`);
    }
  }
  const name = fc.oneof(
    { arbitrary: fc.constantFrom(...names, "page_size", "page_token", "filter"), weight: 4 },
    { arbitrary: nastyText, weight: 1 },
  );
  const value = fc.oneof(
    uidLike(known),
    nastyText,
    fc.constantFrom("99999999999999999999", "201", "-1", "1.5", "name desc", "uid,name", "AAAA"),
    fc.base64String({ maxLength: 120 }).map((s) => s.replace(/\+/g, "-").replace(/\//g, "_")),
  );
  const pair = fc
    .tuple(name, value, fc.boolean())
    .map(([n, v, raw]) =>
      raw
        ? `${n.replace(/[&#\s]/g, "")}=${v.replace(/[&#\s]/g, "")}`
        : `${encodeURIComponent(n)}=${encodeURIComponent(v)}`,
    );
  return fc
    .array(pair, { maxLength: 6 })
    .map((pairs) => (pairs.length ? `?${pairs.join("&")}` : ""));
}
