import type { Json } from "./api-client.ts";
import type { CliContext } from "./cli-context.ts";

/** One table column: its header and how a row shows in it. */
export interface Column {
  header: string;
  value(row: Json): string;
}

/** A column showing a (dotted) field path of the row. */
export function field(header: string, path: string): Column {
  return {
    header,
    value(row) {
      let value: unknown = row;
      for (const key of path.split(".")) value = (value as Json | undefined)?.[key];
      if (value === undefined || value === null) return "";
      if (Array.isArray(value)) return value.join(",");
      if (typeof value === "object") return JSON.stringify(value);
      return String(value);
    },
  };
}

/** Aligned columns with an upper-case header line; empty cells show as "-". */
export function renderTable(rows: Json[], columns: Column[]): string {
  const cells = [
    columns.map((c) => c.header.toUpperCase()),
    ...rows.map((row) => columns.map((c) => c.value(row).replace(/\s+/g, " ") || "-")),
  ];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i].length)));
  return cells
    .map((line) =>
      line
        .map((cell, i) => (i === line.length - 1 ? cell : cell.padEnd(widths[i])))
        .join("  ")
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join("");
}

/** The uid of a row for `-o id` (a row without uid uses `idField`). */
function idOf(row: Json, idField: string): string {
  return String(row[idField] ?? row.uid ?? "");
}

/** Prints a list: a table, the API JSON (`answer`), or one uid per line. */
export function printList(
  ctx: CliContext,
  rows: Json[],
  columns: Column[],
  answer: Json,
  idField = "uid",
): void {
  if (ctx.output === "json") ctx.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
  else if (ctx.output === "id") ctx.stdout.write(rows.map((r) => `${idOf(r, idField)}\n`).join(""));
  else ctx.stdout.write(renderTable(rows, columns));
}

/** Prints one resource: a table of one row, its API JSON, or its uid. */
export function printOne(ctx: CliContext, row: Json, columns: Column[], idField = "uid"): void {
  printList(ctx, [row], columns, row, idField);
}
