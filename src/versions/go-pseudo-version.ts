/** What a pseudo-version records: the commit's time and revision. */
export interface GoPseudoVersion {
  /** The commit time in UTC, `yyyymmddhhmmss`. */
  time: string;
  /** The abbreviated commit hash (12 hex digits when the go command writes it). */
  revision: string;
  /**
   * Which of the three forms: `none` (`vX.0.0-TIME-REV`, no earlier tag), `release`
   * (`vX.Y.Z-0.TIME-REV`, after the tag vX.Y.(Z-1)) or `prerelease`
   * (`vX.Y.Z-PRE.0.TIME-REV`, after the tag vX.Y.Z-PRE).
   */
  form: "none" | "release" | "prerelease";
}

const NO_BASE = /^([0-9]{14})-([A-Za-z0-9]+)$/;
const AFTER_TAG = /^(?:(.+)\.)?0\.([0-9]{14})-([A-Za-z0-9]+)$/;

/**
 * Recognises a pseudo-version by the go command's own test: its shape alone. The time is not
 * checked against a calendar, as the go command does not check it when comparing either.
 */
export function pseudoVersionOf(version: {
  minor: string;
  patch: string;
  prerelease: string[];
}): GoPseudoVersion | undefined {
  const pre = version.prerelease.join(".");
  const bare = NO_BASE.exec(pre);
  if (bare && version.minor === "0" && version.patch === "0") {
    return { time: bare[1], revision: bare[2], form: "none" };
  }
  const tagged = AFTER_TAG.exec(pre);
  if (!tagged) return undefined;
  return { time: tagged[2], revision: tagged[3], form: tagged[1] ? "prerelease" : "release" };
}
