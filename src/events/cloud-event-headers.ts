import type { EventsTable } from "../store/metadata/index.ts";

/** An event as delivered: every column but the store's seq. */
export type OutboxEvent = Omit<EventsTable, "seq">;

/** The audience of every delivered event, as Ce-Audience and the JWT `aud` (reference §7.2). */
export const webhookAudience = "customer";

/**
 * The CloudEvents binary-mode headers of an event (HTTP binding 1.0.2 §3.1.3): one `Ce-<name>`
 * per attribute and extension. Extension names not of lower-case a–z and 0–9 are left out, as
 * the spec allows no others.
 */
export function cloudEventHeaders(event: OutboxEvent): Record<string, string> {
  const headers: Record<string, string> = {
    "Ce-Id": event.id,
    "Ce-Specversion": "1.0",
    "Ce-Source": encodeValue(event.source),
    "Ce-Type": encodeValue(event.type),
    "Ce-Subject": encodeValue(event.subject),
    "Ce-Time": event.time,
    "Ce-Group": encodeValue(event.group_uid),
    "Ce-Audience": webhookAudience,
  };
  const actor = actorSubject(event.data);
  if (actor) headers["Ce-Actor"] = encodeValue(actor);
  if (event.body_type) headers["Ce-Bodytype"] = encodeValue(event.body_type);
  const extensions = parseExtensions(event.extensions);
  for (const [name, value] of Object.entries(extensions)) {
    const header = `Ce-${name[0].toUpperCase()}${name.slice(1)}`;
    if (/^[a-z0-9]{1,20}$/.test(name) && !(header in headers)) headers[header] = encodeValue(value);
  }
  return headers;
}

/** Percent-encodes what a header value may not carry: non-printable ASCII, `"`, `%`, non-ASCII. */
export function encodeValue(value: string): string {
  let out = "";
  for (const ch of value) {
    const code = ch.codePointAt(0) ?? 0;
    if (code >= 0x20 && code <= 0x7e && ch !== '"' && ch !== "%") out += ch;
    else
      for (const byte of Buffer.from(ch, "utf8"))
        out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

function parseExtensions(text: string): Record<string, string> {
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== "object" || Array.isArray(value)) return {};
    return Object.fromEntries(
      Object.entries(value).filter((e): e is [string, string] => typeof e[1] === "string"),
    );
  } catch {
    return {};
  }
}

function actorSubject(data: string): string {
  try {
    const subject = (JSON.parse(data) as { actor?: { subject?: unknown } }).actor?.subject;
    return typeof subject === "string" ? subject : "";
  } catch {
    return "";
  }
}
