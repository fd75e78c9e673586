import type { Ecosystem } from "./ecosystems.ts";
import { ecosystemSchemes } from "./ecosystems.ts";

/**
 * `versions` in the ecosystem's order, lowest first. Text the scheme cannot parse (an old
 * mirror's oddities) sorts below every valid version, by code point, so the order is total.
 */
export function rankVersions(ecosystem: Ecosystem, versions: readonly string[]): string[] {
  const scheme = ecosystemSchemes[ecosystem];
  const parsed = versions.map((text) => ({ text, parsed: scheme.parse(text) }));
  return parsed
    .sort((a, b) => {
      if (a.parsed.error !== undefined || b.parsed.error !== undefined) {
        if (a.parsed.error === undefined) return 1;
        if (b.parsed.error === undefined) return -1;
        return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
      }
      const order = scheme.compare(a.parsed.value, b.parsed.value);
      return order !== 0 ? order : a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
    })
    .map((entry) => entry.text);
}
