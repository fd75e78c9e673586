import type { Schema } from "./schemas.ts";

/** `/iam/v2/groups/{parent}` → `/iam/v2/groups/{}`: the template with its names taken out. */
export function templateShape(path: string): string {
  return path.replace(/\{[^}]*\}/g, "{}");
}

/** The variable names of an OpenAPI path, in order. */
function variableNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]);
}

/**
 * Merges operations whose paths differ only in variable names into one path item per template,
 * as OpenAPI 3.1 requires ("templated paths with the same hierarchy but different templated
 * names MUST NOT exist"): `POST /iam/v2/groups/{parent}`, `GET …/{uid}` and `PATCH …/{group.uid}`
 * become the three operations of `/iam/v2/groups/{uid}`. Each position keeps the name most
 * operations use (ties: the first alphabetically); a path parameter renamed so keeps the request
 * field it fills in `x-lading-field`. Two operations with one verb on one template would be
 * ambiguous routes, and fail generation.
 */
export function mergePathItems(
  paths: Record<string, Record<string, Schema>>,
): Record<string, Record<string, Schema>> {
  const groups = new Map<string, string[]>();
  for (const path of Object.keys(paths)) {
    const shape = templateShape(path);
    groups.set(shape, [...(groups.get(shape) ?? []), path]);
  }
  const merged: Record<string, Record<string, Schema>> = {};
  for (const members of groups.values()) {
    const names = canonicalNames(members, paths);
    let at = members[0];
    for (const [i, name] of names.entries()) at = replaceVariable(at, i, name);
    const item: Record<string, Schema> = {};
    for (const path of members) {
      const own = variableNames(path);
      for (const [verb, operation] of Object.entries(paths[path])) {
        if (item[verb]) {
          throw new Error(
            `${verb.toUpperCase()} ${path} and ${item[verb]["x-lading-method"]} share a path template`,
          );
        }
        item[verb] = renamed(operation, own, names);
      }
    }
    merged[at] = item;
  }
  return Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a.localeCompare(b)));
}

/** Per variable position, the name the most operations of `members` use. */
function canonicalNames(
  members: string[],
  paths: Record<string, Record<string, Schema>>,
): string[] {
  const count = variableNames(members[0]).length;
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const uses = new Map<string, number>();
    for (const path of members) {
      const name = variableNames(path)[i];
      uses.set(name, (uses.get(name) ?? 0) + Object.keys(paths[path]).length);
    }
    const [best] = [...uses].sort(([a, m], [b, n]) => n - m || a.localeCompare(b));
    names.push(best[0]);
  }
  return names;
}

function replaceVariable(path: string, index: number, name: string): string {
  let i = 0;
  return path.replace(/\{[^}]*\}/g, (whole) => (i++ === index ? `{${name}}` : whole));
}

/** The operation with its path parameters named as the merged template names them. */
function renamed(operation: Schema, own: string[], names: string[]): Schema {
  if (own.every((name, i) => name === names[i])) return operation;
  const parameters = (operation.parameters as Schema[]).map((p) => {
    const i = p.in === "path" ? own.indexOf(p.name as string) : -1;
    if (i < 0 || names[i] === p.name) return p;
    return {
      ...p,
      name: names[i],
      description: `${p.description ?? ""} Fills the request field ${p.name}.`.trim(),
      "x-lading-field": p.name,
    };
  });
  return { ...operation, parameters };
}
