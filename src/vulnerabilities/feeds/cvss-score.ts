/**
 * CVSS base scores from vector strings, for the severities feed parsers store. The score math
 * is ae-cvss-calculator's; this file only checks the vector strictly first, because the
 * library scores a vector with missing, repeated or unknown metrics as 0 or silently ignores
 * them, and a wrong number stored is worse than none.
 */
import cvssCalculator from "ae-cvss-calculator";
import type { SeverityRecord } from "./feed-records.ts";

// The package is CommonJS built by webpack, so Node cannot see named exports.
const { Cvss2, Cvss3P0, Cvss3P1, Cvss4P0 } = cvssCalculator;

/** The severity types that carry a CVSS vector. */
export type CvssType = Exclude<SeverityRecord["type"], "UBUNTU">;

/** A qualitative severity rating (CVSS v3.x/v4.0 bands; v2 uses LOW, MEDIUM and HIGH only). */
export type SeverityLabel = "NONE" | "LOW" | "MEDIUM" | "HIGH" | "CRITICAL";

/** Either the base score or why there is none. */
export interface BaseScoreResult {
  value?: number;
  error?: string;
}

/** Longer than any valid vector (a v4.0 one with every metric set is about 170 characters). */
export const maxVectorLength = 200;

type MetricTable = Record<string, readonly string[]>;

const v2Base: MetricTable = {
  AV: ["L", "A", "N"],
  AC: ["H", "M", "L"],
  Au: ["M", "S", "N"],
  C: ["N", "P", "C"],
  I: ["N", "P", "C"],
  A: ["N", "P", "C"],
};
const v2Other: MetricTable = {
  E: ["U", "POC", "F", "H", "ND"],
  RL: ["OF", "TF", "W", "U", "ND"],
  RC: ["UC", "UR", "C", "ND"],
  CDP: ["N", "L", "LM", "MH", "H", "ND"],
  TD: ["N", "L", "M", "H", "ND"],
  CR: ["L", "M", "H", "ND"],
  IR: ["L", "M", "H", "ND"],
  AR: ["L", "M", "H", "ND"],
};

const v3Base: MetricTable = {
  AV: ["N", "A", "L", "P"],
  AC: ["L", "H"],
  PR: ["N", "L", "H"],
  UI: ["N", "R"],
  S: ["U", "C"],
  C: ["H", "L", "N"],
  I: ["H", "L", "N"],
  A: ["H", "L", "N"],
};
const v3Other: MetricTable = {
  E: ["X", "U", "P", "F", "H"],
  RL: ["X", "O", "T", "W", "U"],
  RC: ["X", "U", "R", "C"],
  CR: ["X", "L", "M", "H"],
  IR: ["X", "L", "M", "H"],
  AR: ["X", "L", "M", "H"],
  MAV: ["X", "N", "A", "L", "P"],
  MAC: ["X", "L", "H"],
  MPR: ["X", "N", "L", "H"],
  MUI: ["X", "N", "R"],
  MS: ["X", "U", "C"],
  MC: ["X", "N", "L", "H"],
  MI: ["X", "N", "L", "H"],
  MA: ["X", "N", "L", "H"],
};

const v4Base: MetricTable = {
  AV: ["N", "A", "L", "P"],
  AC: ["L", "H"],
  AT: ["N", "P"],
  PR: ["N", "L", "H"],
  UI: ["N", "P", "A"],
  VC: ["H", "L", "N"],
  VI: ["H", "L", "N"],
  VA: ["H", "L", "N"],
  SC: ["H", "L", "N"],
  SI: ["H", "L", "N"],
  SA: ["H", "L", "N"],
};
const v4Other: MetricTable = {
  E: ["X", "A", "P", "U"],
  CR: ["X", "H", "M", "L"],
  IR: ["X", "H", "M", "L"],
  AR: ["X", "H", "M", "L"],
  MAV: ["X", "N", "A", "L", "P"],
  MAC: ["X", "L", "H"],
  MAT: ["X", "N", "P"],
  MPR: ["X", "N", "L", "H"],
  MUI: ["X", "N", "P", "A"],
  MVC: ["X", "H", "L", "N"],
  MVI: ["X", "H", "L", "N"],
  MVA: ["X", "H", "L", "N"],
  MSC: ["X", "H", "L", "N"],
  MSI: ["X", "S", "H", "L", "N"],
  MSA: ["X", "S", "H", "L", "N"],
  S: ["X", "N", "P"],
  AU: ["X", "N", "Y"],
  R: ["X", "A", "U", "I"],
  V: ["X", "D", "C"],
  RE: ["X", "L", "M", "H"],
  U: ["X", "Clear", "Green", "Amber", "Red"],
};

/**
 * Checks the metrics after the prefix and returns the vector cut to its base metrics, in the
 * order given. Only base metrics go to the library: its v4.0 "base" result otherwise folds in
 * threat metrics (E:U lowers 9.3 to 8.1), and the base score is defined without them.
 * Metric order is not enforced; the specifications recommend an order but scores do not depend
 * on it.
 */
function baseMetricsOf(
  body: string,
  base: MetricTable,
  other: MetricTable,
): BaseScoreResult & { base?: string } {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const part of body.split("/")) {
    const colon = part.indexOf(":");
    const name = colon < 0 ? part : part.slice(0, colon);
    const value = colon < 0 ? "" : part.slice(colon + 1);
    const allowed = Object.hasOwn(base, name)
      ? base[name]
      : Object.hasOwn(other, name)
        ? other[name]
        : undefined;
    if (allowed === undefined) return { error: `unknown metric "${name}"` };
    if (seen.has(name)) return { error: `metric ${name} given twice` };
    if (!allowed.includes(value)) return { error: `invalid value "${value}" for metric ${name}` };
    seen.add(name);
    if (Object.hasOwn(base, name)) kept.push(part);
  }
  const missing = Object.keys(base).filter((name) => !seen.has(name));
  if (missing.length > 0)
    return { error: `missing base metric${missing.length > 1 ? "s" : ""} ${missing.join(", ")}` };
  return { base: kept.join("/") };
}

function checked(score: unknown): BaseScoreResult {
  if (typeof score !== "number" || !Number.isFinite(score) || score < 0 || score > 10) {
    return { error: "the CVSS library returned no score" };
  }
  // The library gives -0 for some all-None vectors; deepEqual and JSON would show it apart.
  return { value: score === 0 ? 0 : score };
}

/**
 * The base score (0.0–10.0, one decimal) of a CVSS vector of the given type. CVSS_V3 covers
 * 3.0 and 3.1 and needs the `CVSS:3.0/` or `CVSS:3.1/` prefix; CVSS_V4 needs `CVSS:4.0/`;
 * CVSS_V2 vectors have no prefix. Never throws: an invalid or oversized vector gives `error`.
 */
export function baseScoreOf(type: SeverityRecord["type"], vector: string): BaseScoreResult {
  if (typeof vector !== "string") return { error: "the vector is not a string" };
  if (vector.length > maxVectorLength)
    return { error: `the vector is longer than ${maxVectorLength} characters` };
  if (vector.length === 0) return { error: "the vector is empty" };
  try {
    switch (type) {
      case "CVSS_V2": {
        if (vector.startsWith("CVSS:")) return { error: "a CVSS v2 vector has no CVSS: prefix" };
        const cut = baseMetricsOf(vector, v2Base, v2Other);
        if (cut.base === undefined) return { error: cut.error };
        return checked(new Cvss2(cut.base).calculateScores().base);
      }
      case "CVSS_V3": {
        const prefix = vector.slice(0, 9);
        if (prefix !== "CVSS:3.0/" && prefix !== "CVSS:3.1/")
          return { error: "a CVSS v3 vector starts with CVSS:3.0/ or CVSS:3.1/" };
        const cut = baseMetricsOf(vector.slice(9), v3Base, v3Other);
        if (cut.base === undefined) return { error: cut.error };
        // 3.0 and 3.1 round differently (3.1 fixed float rounding-up), so each has its class.
        const cvss =
          prefix === "CVSS:3.0/" ? new Cvss3P0(prefix + cut.base) : new Cvss3P1(prefix + cut.base);
        return checked(cvss.calculateScores().base);
      }
      case "CVSS_V4": {
        if (!vector.startsWith("CVSS:4.0/"))
          return { error: "a CVSS v4 vector starts with CVSS:4.0/" };
        const cut = baseMetricsOf(vector.slice(9), v4Base, v4Other);
        if (cut.base === undefined) return { error: cut.error };
        return checked(new Cvss4P0(`CVSS:4.0/${cut.base}`).calculateScores().base);
      }
      default:
        return { error: `${String(type)} is not a CVSS type` };
    }
  } catch (err) {
    // The vector passed our checks, so this is the library failing; report it, never throw.
    return {
      error: `the CVSS library failed: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}

/**
 * The qualitative rating of a base score: v3.x and v4.0 use NONE 0.0, LOW 0.1–3.9, MEDIUM
 * 4.0–6.9, HIGH 7.0–8.9, CRITICAL 9.0–10.0; v2 has LOW 0.0–3.9, MEDIUM 4.0–6.9, HIGH 7.0–10.0.
 * Undefined for a score outside 0–10 or not a number.
 */
export function severityLabel(score: number, type: CvssType): SeverityLabel | undefined {
  if (typeof score !== "number" || !Number.isFinite(score) || score < 0 || score > 10)
    return undefined;
  if (type === "CVSS_V2") return score < 4 ? "LOW" : score < 7 ? "MEDIUM" : "HIGH";
  if (type !== "CVSS_V3" && type !== "CVSS_V4") return undefined;
  if (score === 0) return "NONE";
  return score < 4 ? "LOW" : score < 7 ? "MEDIUM" : score < 9 ? "HIGH" : "CRITICAL";
}
