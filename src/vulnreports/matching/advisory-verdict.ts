import type { VersionScheme } from "../../versions/index.ts";
import type { StoredEvent } from "../../vulnerabilities/import/advisory-row.ts";

/** The v1 Fix.State names. */
export type FixState = "UNKNOWN" | "FIXED" | "NOT_FIXED" | "WONT_FIX";

/** What an advisory's latest event says about one installed version. */
export type Verdict =
  | { matches: false; why: string }
  | { matches: true; state: FixState; versions: string[]; note: string };

const notFixed = (note = ""): Verdict => ({
  matches: true,
  state: "NOT_FIXED",
  versions: [],
  note,
});

/**
 * Decides whether `installed` is affected, from the latest event of an advisory (events are
 * stored oldest first). A fix at or below the installed version, a false positive, and a
 * patched event listing the installed version clear it; a fix above it leaves it FIXED with
 * that version; fix-not-planned is WONT_FIX; every other event is NOT_FIXED. A version the
 * rules cannot read keeps the match, as UNKNOWN with the reason, rather than dropping it.
 */
export function advisoryVerdict(
  events: readonly StoredEvent[],
  installed: string,
  scheme: VersionScheme | undefined,
): Verdict {
  const latest = events.at(-1);
  if (!latest) return { matches: false, why: "the advisory has no events" };
  switch (latest.type) {
    case "false-positive-determination":
      return {
        matches: false,
        why: `false positive (${latest.falsePositiveType ?? "unspecified"})`,
      };
    case "fix-not-planned":
      return { matches: true, state: "WONT_FIX", versions: [], note: "" };
    case "patched":
      return (latest.patchedVersions ?? []).some((v) => sameVersion(v, installed, scheme))
        ? { matches: false, why: `patched in ${installed}` }
        : notFixed();
    case "fixed":
      return fixedVerdict(latest.fixedVersion ?? "", installed, scheme);
    default:
      return notFixed();
  }
}

function fixedVerdict(
  fixed: string,
  installed: string,
  scheme: VersionScheme | undefined,
): Verdict {
  if (fixed === "") return notFixed("the fixed event names no version");
  if (!scheme) {
    if (fixed === installed) return { matches: false, why: `fixed in ${fixed}` };
    return {
      matches: true,
      state: "UNKNOWN",
      versions: [fixed],
      note: "no version rules for this package type; the installed version was not compared",
    };
  }
  const order = scheme.compareText(installed, fixed);
  if (order.error !== undefined) {
    return { matches: true, state: "UNKNOWN", versions: [fixed], note: order.error };
  }
  if (order.value >= 0) return { matches: false, why: `fixed in ${fixed}` };
  return { matches: true, state: "FIXED", versions: [fixed], note: "" };
}

function sameVersion(a: string, b: string, scheme: VersionScheme | undefined): boolean {
  if (a === b) return true;
  return scheme?.compareText(a, b).value === 0;
}
