import type { FieldViolation } from "../errors/index.ts";
import { isUidp } from "../uidp/index.ts";

const NAME = /^[a-z0-9 ._-]{1,}$/;
const DESCRIPTION = /^[^\r\n\t\v\f]{0,512}$/u;
/** Longest resource name accepted. */
export const maxNameLength = 63;

/** Collects field violations so one error can name every failing field (DESIGN §4). */
export class Violations {
  readonly list: FieldViolation[] = [];

  add(field: string, description: string): this {
    this.list.push({ field, description });
    return this;
  }

  /** A resource name: ^[a-z0-9 ._-]{1,}$, at most 63 characters. */
  name(field: string, value: string): this {
    if (!NAME.test(value)) return this.add(field, "must match the pattern ^[a-z0-9 ._-]{1,}$");
    if (value.length > maxNameLength)
      return this.add(field, `must be at most ${maxNameLength} characters`);
    return this;
  }

  /** A description: at most 512 characters, no line breaks or tabs. */
  description(field: string, value: string): this {
    if (!DESCRIPTION.test(value)) {
      return this.add(field, "must be at most 512 characters without line breaks or tabs");
    }
    return this;
  }

  /** A uid (`^[0-9a-f]{40}(?:/[0-9a-f]{16})*$`). */
  uid(field: string, value: string): this {
    if (!isUidp(value))
      return this.add(field, "must be a uid: 40 hex characters, then /<16 hex> segments");
    return this;
  }

  get empty(): boolean {
    return this.list.length === 0;
  }
}

/** The current time in the API's timestamp form: ISO 8601 UTC with milliseconds. */
export function now(): string {
  return new Date().toISOString();
}
