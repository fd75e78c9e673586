import {
  expiryAnnotation,
  immutableHold,
  immutableMessage,
  parseExpiry,
} from "../../registry/index.ts";
import type { OciContext } from "./oci-context.ts";
import { ociError } from "./oci-error.ts";

/**
 * 403 DENIED when an immutability rule holds one of `tags`; thrown inside the change's
 * transaction, so nothing of it is kept.
 */
export async function refuseImmutable(
  db: OciContext["db"],
  repoUid: string,
  tags: string[],
  change: string,
): Promise<void> {
  const hold = await immutableHold(db, repoUid, tags);
  if (hold) {
    throw ociError(403, "DENIED", immutableMessage(hold, change), {
      tag: hold.tag,
      rule: hold.rule.uid,
      pattern: hold.rule.pattern,
    });
  }
}

/** The expiry the manifest's `dev.lading.expires` annotation asks for; 400 when malformed. */
export function expiryOf(annotations: Record<string, string> | undefined): string | undefined {
  const text = annotations?.[expiryAnnotation];
  if (text === undefined) return undefined;
  const parsed = parseExpiry(text, new Date());
  if (parsed.error) {
    throw ociError(400, "MANIFEST_INVALID", `annotation ${expiryAnnotation} ${parsed.error}`);
  }
  return parsed.value;
}
