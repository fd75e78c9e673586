import { type DescMessage, fromJson, type JsonValue, toBinary } from "@bufbuild/protobuf";
import fc from "fast-check";
import { objectText } from "./json-inputs.ts";

/** A varint, optionally padded to an over-long (invalid past 10 bytes) encoding. */
function varint(value: bigint, pad = 0): number[] {
  const out: number[] = [];
  let v = value;
  do {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v > 0n || pad > 0 ? byte | 0x80 : byte);
  } while (v > 0n);
  for (let i = 0; i < pad; i++) out.push(i === pad - 1 ? 0 : 0x80);
  return out;
}

/**
 * Protobuf wire format that is well framed field by field but wrong in the details: every
 * wire type (the invalid 6 and 7, unmatched groups), numbers of real and absent fields,
 * over-long varints, lengths past the end, truncated fixed-width values.
 */
function wireGarbage(message: DescMessage): fc.Arbitrary<Buffer> {
  const numbers = [...message.fields.map((f) => f.number), 0, 536_870_911, 19_000];
  const field = fc
    .tuple(
      fc.constantFrom(...numbers),
      fc.integer({ min: 0, max: 7 }),
      fc.uint8Array({ maxLength: 12 }),
      fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
      fc.integer({ min: 0, max: 12 }),
      fc.integer({ min: -3, max: 100 }),
    )
    .map(([number, wire, bytes, big, pad, lengthDelta]) => {
      const key = varint((BigInt(number) << 3n) | BigInt(wire));
      if (wire === 0) return [...key, ...varint(big, pad)];
      if (wire === 2) {
        const length = Math.max(0, bytes.length + lengthDelta);
        return [...key, ...varint(BigInt(length)), ...bytes];
      }
      if (wire === 1) return [...key, ...bytes.slice(0, 8)];
      if (wire === 5) return [...key, ...bytes.slice(0, 4)];
      return [...key, ...bytes];
    });
  return fc.array(field, { minLength: 1, maxLength: 5 }).map((fs) => Buffer.from(fs.flat()));
}

/**
 * A valid encoding of a random request: JSON of the right shape read with unknown fields
 * ignored; a request JSON cannot fill is sent empty.
 */
function validMessage(message: DescMessage, known: string[]): fc.Arbitrary<Buffer> {
  return objectText(message, { known, depth: 0 }).map((text) => {
    try {
      const value = fromJson(message, JSON.parse(text) as JsonValue, { ignoreUnknownFields: true });
      return Buffer.from(toBinary(message, value));
    } catch {
      return Buffer.alloc(0);
    }
  });
}

/** A request message body: valid, subtly malformed, or random bytes. */
export function protoBody(message: DescMessage, known: string[]): fc.Arbitrary<Buffer> {
  return fc.oneof(
    { arbitrary: validMessage(message, known), weight: 2 },
    { arbitrary: wireGarbage(message), weight: 3 },
    { arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)), weight: 2 },
  );
}

/** How one gRPC length-prefixed frame goes wrong, if it does. */
export type FrameFault =
  | "none"
  | "compressed"
  | "length-too-long"
  | "trailing-junk"
  | "length-huge"
  | "truncated-prefix"
  | "unknown-flag";

/** A frame fault, mostly none; compression is fuzzed on its own. */
export const frameFault: fc.Arbitrary<FrameFault> = fc.oneof(
  { arbitrary: fc.constant<FrameFault>("none"), weight: 3 },
  {
    arbitrary: fc.constantFrom<FrameFault>(
      "length-too-long",
      "trailing-junk",
      "length-huge",
      "truncated-prefix",
      "unknown-flag",
    ),
    weight: 4,
  },
);

/** `payload` in a gRPC length-prefixed frame, broken as `fault` says. */
export function frame(payload: Buffer, fault: FrameFault): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(payload.length, 1);
  switch (fault) {
    case "compressed":
      prefix[0] = 1;
      break;
    case "length-too-long":
      prefix.writeUInt32BE(payload.length + 7, 1);
      break;
    case "trailing-junk":
      return Buffer.concat([prefix, payload, Buffer.from([0, 0, 1])]);
    case "length-huge":
      prefix.writeUInt32BE(0xffff_fff0, 1);
      break;
    case "truncated-prefix":
      return prefix.subarray(0, 3);
    case "unknown-flag":
      prefix[0] = 0x7e;
      break;
    case "none":
      break;
  }
  return Buffer.concat([prefix, payload]);
}
