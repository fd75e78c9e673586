/**
 * SQLite's extended result codes for a UNIQUE and a PRIMARY KEY constraint failure
 * (SQLITE_CONSTRAINT_UNIQUE, SQLITE_CONSTRAINT_PRIMARYKEY): `node:sqlite` reports them as
 * `errcode`, with the generic `code` ERR_SQLITE_ERROR.
 */
const sqliteUniqueCodes = [2067, 1555];

/** True for a unique-constraint (or primary-key) failure on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  if (code === "23505") return true;
  return code === "ERR_SQLITE_ERROR" && sqliteUniqueCodes.includes(errcode as number);
}
