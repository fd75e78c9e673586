import type { JWTPayload } from "jose";
import { isLoopbackHost, type OutboundGuard } from "../outbound/index.ts";
import { compileSafePattern, maxPatternLength } from "./safe-pattern.ts";

/** The upstream tokens a claim-match identity accepts (its `claimMatch`). */
export interface ClaimMatch {
  /** Exact `iss`; "" when `issuerPattern` is used. */
  issuer: string;
  /** Exact `sub`; "" when `subjectPattern` is used. */
  subject: string;
  /** RE2 regular expression the whole `iss` must match, or "". */
  issuerPattern?: string;
  /** RE2 regular expression the whole `sub` must match, or "". */
  subjectPattern?: string;
  /** When set, the token's `aud` must include it instead of Lading's own audiences. */
  audience?: string;
  /** Extra claims that must equal the token's (see {@link claimEquals}). */
  claims?: Record<string, string>;
}

/** Most extra claims of one claim match. */
export const maxClaims = 16;
const claimName = /^[A-Za-z0-9_.:/-]{1,256}$/;
const reservedClaims = new Set(["iss", "sub", "aud", "exp", "nbf", "iat", "jti"]);

/**
 * True when `value` equals `exact`, or, without `exact`, matches the whole of `pattern` (RE2). A
 * pattern RE2 cannot run, such as a JavaScript-only one stored before patterns were RE2, matches
 * nothing.
 */
export function matchesExactOrPattern(value: string, exact: string, pattern = ""): boolean {
  if (exact !== "") return value === exact;
  if (pattern === "") return false;
  return compileSafePattern(pattern).value?.(value) ?? false;
}

/**
 * An https URL without query, fragment or credentials (http only for loopback hosts): the only
 * issuers Lading fetches discovery documents from. Whether the outbound guard lets the request
 * reach the issuer's address is {@link issuerProblem}'s and the guard's business.
 */
export function isIssuerUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return (
    (url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname))) &&
    !url.search &&
    !url.hash &&
    !url.username &&
    !url.password
  );
}

/**
 * Why Lading will not fetch from issuer `text`, or undefined: it must be an issuer URL, and the
 * outbound guard must not refuse its destination outright (a literal internal address, or
 * localhost, that the operator does not allow). A name is checked again at each fetch.
 */
export function issuerProblem(
  text: string,
  outbound: Pick<OutboundGuard, "destinationProblem">,
): string | undefined {
  if (!isIssuerUrl(text)) {
    return "must be an https URL (http only for loopback hosts) without query, fragment or credentials";
  }
  return outbound.destinationProblem(text);
}

/**
 * A token claim against an expected string: strings compare as they are, any other JSON value
 * (number, boolean, array, object) by its `JSON.stringify` form; a missing claim never matches.
 */
export function claimEquals(actual: unknown, expected: string): boolean {
  if (actual === undefined) return false;
  return typeof actual === "string" ? actual === expected : JSON.stringify(actual) === expected;
}

/** The name of the first extra claim of `match` that `payload` does not satisfy, if any. */
export function unmatchedClaim(match: ClaimMatch, payload: JWTPayload): string | undefined {
  for (const [name, expected] of Object.entries(match.claims ?? {})) {
    if (!claimEquals(payload[name], expected)) return name;
  }
  return undefined;
}

/**
 * Field violations of a claim match, as `[field suffix, description]` pairs; `outbound` judges
 * the exact issuer's destination.
 */
export function claimMatchProblems(
  match: Required<ClaimMatch>,
  outbound: Pick<OutboundGuard, "destinationProblem">,
): [string, string][] {
  const out: [string, string][] = [];
  const pair = (exact: string, pattern: string, name: string, checkExact: () => void) => {
    if (exact !== "" && pattern !== "") {
      out.push([`${name}_pattern`, `exactly one of ${name} and ${name}_pattern may be set`]);
    } else if (exact === "" && pattern === "") {
      out.push([name, `exactly one of ${name} and ${name}_pattern is required`]);
    } else if (exact !== "") checkExact();
    else {
      const { error } = compileSafePattern(pattern);
      if (error !== undefined) {
        out.push([
          `${name}_pattern`,
          `must be an RE2 regular expression of at most ${maxPatternLength} characters; this one ${error}`,
        ]);
      }
    }
  };
  pair(match.issuer, match.issuerPattern, "issuer", () => {
    const problem = issuerProblem(match.issuer, outbound);
    if (problem) out.push(["issuer", problem]);
  });
  pair(match.subject, match.subjectPattern, "subject", () => {
    if (match.subject.length > 1024) out.push(["subject", "must be 1 to 1024 characters"]);
  });
  if (match.audience.length > 1024 || /\s/.test(match.audience)) {
    out.push(["audience", "must be at most 1024 characters without spaces"]);
  }
  const entries = Object.entries(match.claims);
  if (entries.length > maxClaims) out.push(["claims", `must hold at most ${maxClaims} claims`]);
  for (const [name, value] of entries) {
    if (!claimName.test(name) || reservedClaims.has(name)) {
      out.push([
        `claims[${JSON.stringify(name)}]`,
        "claim names are 1 to 256 of A-Z a-z 0-9 _ . : / -, and not iss, sub, aud, exp, nbf, iat or jti",
      ]);
    } else if (value.length > 1024) {
      out.push([`claims[${JSON.stringify(name)}]`, "must be at most 1024 characters"]);
    }
  }
  return out;
}
