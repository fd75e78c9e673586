/** Options of {@link createStampedCache}. */
export interface StampedCacheOptions<V> {
  /** Bytes kept at most; the least recently used entries go first. */
  maxBytes: number;
  /** Bytes a value holds. */
  sizeOf(value: V): number;
}

/** Values by key, each valid for one state of what it was built from. */
export interface StampedCache<V> {
  /**
   * The value of `key` for state `stamp`: the cached one when it was built for that stamp,
   * else `build()`'s, which replaces it. Concurrent misses for one stamp share one build; a
   * failed build is not kept.
   */
  get(key: string, stamp: string, build: () => Promise<V>): Promise<V>;
}

/**
 * A cache of rendered documents (packuments, project pages) whose callers read a cheap change
 * stamp of the source row on every request: a change made through any replica moves the stamp,
 * so no replica serves an old document, and unchanged ones cost no rebuild.
 */
export function createStampedCache<V>(options: StampedCacheOptions<V>): StampedCache<V> {
  const entries = new Map<string, { stamp: string; value: Promise<V>; bytes: number }>();
  let bytes = 0;
  const drop = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    bytes -= entry.bytes;
    entries.delete(key);
  };
  return {
    get(key, stamp, build) {
      const hit = entries.get(key);
      if (hit && hit.stamp === stamp) {
        // Map order is the recency order: re-insert on use.
        entries.delete(key);
        entries.set(key, hit);
        return hit.value;
      }
      drop(key);
      const entry = { stamp, bytes: 0, value: build() };
      entries.set(key, entry);
      entry.value.then(
        (value) => {
          if (entries.get(key) !== entry) return;
          entry.bytes = options.sizeOf(value);
          bytes += entry.bytes;
          for (const old of entries.keys()) {
            if (bytes <= options.maxBytes) break;
            drop(old);
          }
        },
        () => {
          if (entries.get(key) === entry) drop(key);
        },
      );
      return entry.value;
    },
  };
}
