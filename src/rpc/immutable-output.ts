const immutable = new WeakSet<object>();

/**
 * Marks a response message its service will never change again (a cached, finished report),
 * so a door may keep its encoding with it and answer the next call without encoding it again.
 */
export function markImmutable<T extends object>(message: T): T {
  immutable.add(message);
  return message;
}

/** True for a message marked with markImmutable. */
export function isImmutable(message: object): boolean {
  return immutable.has(message);
}
