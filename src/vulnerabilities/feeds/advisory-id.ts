import { createHash } from "node:crypto";

/** The 20 letters of CGA ids (formats §1.1): no vowels, no 0 or 1, nothing ambiguous. */
export const advisoryIdAlphabet = "23456789cfghjmpqrvwx";

const ADVISORY_ID = /^CGA(-[23456789cfghjmpqrvwx]{4}){3}$/;

/** True for a CGA id: CGA-xxxx-xxxx-xxxx over the 20-letter alphabet. */
export function isAdvisoryId(id: string): boolean {
  return ADVISORY_ID.test(id);
}

/**
 * A CGA id for an entry whose source has none (OSV, OpenVEX), derived from `seed` so that
 * re-importing the same entry gives the same id (docs/decisions.md).
 */
export function deriveAdvisoryId(seed: string): string {
  const digest = createHash("sha256").update(seed).digest();
  let letters = "";
  for (let i = 0; i < 12; i++) letters += advisoryIdAlphabet[digest[i] % 20];
  return `CGA-${letters.slice(0, 4)}-${letters.slice(4, 8)}-${letters.slice(8)}`;
}
