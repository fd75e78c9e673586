import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";
import { type Any, anyIs, anyPack, anyUnpack } from "@bufbuild/protobuf/wkt";
import {
  BadRequest_FieldViolationSchema,
  BadRequestSchema,
} from "../../gen/google/rpc/error_details_pb.js";
import { type Status, StatusSchema } from "../../gen/google/rpc/status_pb.js";

/**
 * The largest gRPC trailer block sent, counted as HTTP/2 does (RFC 9113 §6.5.2: name + value +
 * 32 per field): 8 KiB, the default limit of gRPC's C++ and Java clients, which refuse a larger
 * block (Node's own HTTP/2 client takes 64 KiB, and Node's server resets a stream whose block
 * is over the client's limit rather than send it).
 */
export const trailerBudgetBytes = 8 * 1024;

/** What a shortened message ends with. */
export const cutMarker = "… (cut to fit the gRPC trailers)";

const fieldSize = (name: string, value: string) => name.length + value.length + 32;

function listSize(headers: Headers): number {
  let size = 0;
  headers.forEach((value, name) => {
    size += fieldSize(name, value);
  });
  return size;
}

/**
 * Shrinks the error in gRPC trailers that would be larger than `budget` until they fit: the
 * message (in `grpc-message` and in the google.rpc.Status of `grpc-status-details-bin`) is cut
 * and says so, then the BadRequest field violations are kept in order as far as they fit, and
 * any other detail is kept whole or left out. The code is never changed. Trailers within the
 * budget are left exactly as they are.
 */
export function fitTrailers(trailer: Headers, budget = trailerBudgetBytes): void {
  if (listSize(trailer) <= budget) return;
  const status = readStatus(trailer.get("grpc-status-details-bin"));
  const message = status?.message ?? decodeMessage(trailer.get("grpc-message") ?? "");
  trailer.delete("grpc-message");
  trailer.delete("grpc-status-details-bin");
  let room = budget - listSize(trailer);
  // A quarter of the room for the message, so the details keep most of it.
  const short = shorten(message, Math.floor(room / 4) - fieldSize("grpc-message", ""));
  const encoded = encodeURIComponent(short);
  trailer.set("grpc-message", encoded);
  room -= fieldSize("grpc-message", encoded);
  if (!status) return;
  const binRoom = room - fieldSize("grpc-status-details-bin", "");
  const fitted = fitStatus(status, short, Math.floor(binRoom / 4) * 3);
  if (fitted) {
    trailer.set("grpc-status-details-bin", base64Encode(toBinary(StatusSchema, fitted), "std_raw"));
  }
}

function readStatus(bin: string | null): Status | undefined {
  if (bin === null) return undefined;
  try {
    return fromBinary(StatusSchema, base64Decode(bin));
  } catch {
    return undefined;
  }
}

function decodeMessage(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * `text` if its percent-encoding takes at most `max` characters, else its longest start that
 * does with {@link cutMarker} after it. Lone surrogates (which percent-encoding refuses)
 * become U+FFFD.
 */
export function shorten(text: string, max: number): string {
  const whole = text.toWellFormed();
  if (encodeURIComponent(whole).length <= max) return whole;
  let used = encodeURIComponent(cutMarker).length;
  let end = 0;
  for (const char of whole) {
    used += encodeURIComponent(char).length;
    if (used > max) break;
    end += char.length;
  }
  return whole.slice(0, end) + cutMarker;
}

/**
 * A Status with `message` and as many of `status`'s details as fit in `maxBytes` encoded; the
 * sizes are counted generously, then checked exactly. Undefined if not even the bare status fits.
 */
function fitStatus(status: Status, message: string, maxBytes: number): Status | undefined {
  const out = create(StatusSchema, { code: status.code, message });
  let used = toBinary(StatusSchema, out).length;
  const kept = new Map<number, Any>();
  const framing = (any: Any) => any.typeUrl.length + 12;
  // Other details whole first (ErrorInfo names the reason); then the violations that fit.
  status.details.forEach((any, index) => {
    if (anyIs(any, BadRequestSchema)) return;
    const cost = any.value.length + framing(any);
    if (used + cost > maxBytes) return;
    kept.set(index, any);
    used += cost;
  });
  status.details.forEach((any, index) => {
    if (!anyIs(any, BadRequestSchema)) return;
    const bad = anyUnpack(any, BadRequestSchema);
    if (!bad) return;
    const fits = create(BadRequestSchema);
    used += framing(any);
    for (const violation of bad.fieldViolations) {
      const cost = toBinary(BadRequest_FieldViolationSchema, violation).length + 4;
      if (used + cost > maxBytes) break;
      fits.fieldViolations.push(violation);
      used += cost;
    }
    if (fits.fieldViolations.length > 0) kept.set(index, anyPack(BadRequestSchema, fits));
  });
  out.details = [...kept.entries()].sort(([a], [b]) => a - b).map(([, any]) => any);
  while (out.details.length > 0 && toBinary(StatusSchema, out).length > maxBytes) out.details.pop();
  return toBinary(StatusSchema, out).length <= maxBytes ? out : undefined;
}
