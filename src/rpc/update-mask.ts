import type { FieldMask } from "@bufbuild/protobuf/wkt";
import { invalidArgument } from "../errors/index.ts";
import type { Call } from "./call.ts";

/** The fields of a resource an update may name. */
export interface UpdatableFields {
  /** Paths that may change, snake_case, dotted for nested fields. */
  updatable: readonly string[];
  /** Paths that exist but only the server sets. */
  outputOnly: readonly string[];
}

/**
 * The paths an update changes (spec "Partial update"):
 * - an update mask given by the caller: exactly its paths; an unknown or output-only path is
 *   INVALID_ARGUMENT naming update_mask;
 * - no mask over REST: the fields present in the JSON body (output-only ones ignored, so a
 *   read-modify-write body works);
 * - no mask over gRPC: the fields set to non-default values (`populated`).
 * `a.b` selects a nested field; naming a message (`a`) selects all its updatable sub-fields.
 */
export function updatePaths(
  domain: string,
  mask: FieldMask | undefined,
  call: Call,
  fields: UpdatableFields,
  populated: () => string[],
): Set<string> {
  const given = mask?.paths ?? [];
  if (given.length > 0) {
    const bad = given.filter((p) => !isUpdatable(p, fields.updatable));
    if (bad.length > 0) {
      throw invalidArgument(
        domain,
        bad.map((p) => ({
          field: "update_mask",
          description: fields.outputOnly.includes(p)
            ? `${p} is output only`
            : `${p} is not a field that can be updated (${fields.updatable.join(", ")})`,
        })),
      );
    }
    return expand(given, fields.updatable);
  }
  const implied = call.bodyPaths ?? populated();
  return expand(
    implied.filter((p) => isUpdatable(p, fields.updatable)),
    fields.updatable,
  );
}

function isUpdatable(path: string, updatable: readonly string[]): boolean {
  return path === "*" || updatable.some((u) => u === path || u.startsWith(`${path}.`));
}

function expand(paths: string[], updatable: readonly string[]): Set<string> {
  if (paths.includes("*")) return new Set(updatable);
  const out = new Set<string>();
  for (const p of paths) {
    for (const u of updatable) if (u === p || u.startsWith(`${p}.`)) out.add(u);
    out.add(p);
  }
  return out;
}
