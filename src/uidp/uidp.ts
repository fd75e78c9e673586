import { randomBytes } from "node:crypto";

const UIDP = /^[0-9a-f]{40}(?:\/[0-9a-f]{16})*$/;

/** True when `uid` is a well-formed uid: 40 hex, then zero or more `/<16 hex>` segments. */
export function isUidp(uid: string): boolean {
  return UIDP.test(uid);
}

/** A new root uid: 20 random bytes as lowercase hex. */
export function newRootUid(): string {
  return randomBytes(20).toString("hex");
}

/** A new child uid of `parent`: `<parent>/<16 hex>`. */
export function newChildUid(parent: string): string {
  return `${parent}/${randomBytes(8).toString("hex")}`;
}

/** The parent of a uid; "" for a root uid. */
export function parentOf(uid: string): string {
  const i = uid.lastIndexOf("/");
  return i < 0 ? "" : uid.slice(0, i);
}

/** The root segment of a uid. */
export function rootOf(uid: string): string {
  const i = uid.indexOf("/");
  return i < 0 ? uid : uid.slice(0, i);
}

/** True when `uid` is `ancestor` itself or lies anywhere below it. */
export function isWithin(uid: string, ancestor: string): boolean {
  return uid === ancestor || uid.startsWith(`${ancestor}/`);
}

/**
 * The half-open key range holding every strict descendant of `uid`: all keys k with
 * `low < k < high`. '0' is the character after '/', so `uid + '0'` bounds the range.
 */
export function descendantRange(uid: string): { low: string; high: string } {
  return { low: `${uid}/`, high: `${uid}0` };
}
