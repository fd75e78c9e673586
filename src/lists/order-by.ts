import type { FieldViolation } from "../errors/index.ts";

/** A sortable field of a resource: the `order_by` name and the column behind it. */
export interface SortField {
  column: string;
  /** Nullable columns sort as "" so both dialects put missing values first. */
  nullable?: boolean;
}

/** A parsed `order_by`. */
export interface OrderBy {
  /** The field name as written in order_by, e.g. `created_at`. */
  field: string;
  sort: SortField;
  desc: boolean;
}

/**
 * Parses `order_by` ("field" or "field desc" / "field asc") against a resource's sortable
 * fields. Empty means `defaultField` ascending. Anything else is a violation on `order_by`.
 */
export function parseOrderBy(
  text: string,
  fields: Readonly<Record<string, SortField>>,
  defaultField: string,
): { value?: OrderBy; error?: FieldViolation } {
  const words = text.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0)
    return { value: { field: defaultField, sort: fields[defaultField], desc: false } };
  const [field, direction = "asc", ...rest] = words;
  const sort = Object.hasOwn(fields, field) ? fields[field] : undefined;
  const names = Object.keys(fields).join(", ");
  if (!sort || rest.length > 0 || !/^(asc|desc)$/i.test(direction)) {
    return {
      error: {
        field: "order_by",
        description: `must be one of ${names}, optionally followed by " desc" or " asc"`,
      },
    };
  }
  return { value: { field, sort, desc: direction.toLowerCase() === "desc" } };
}
