import { parseDurationMs } from "./duration.ts";

/** How the event dispatcher delivers (docs/events.md "Delivery"). */
export interface EventsSettings {
  /** One attempt's deadline, connect to last response byte. Default 10 s. */
  timeoutMs: number;
  /** A delivery still failing this long after it was recorded is dead-lettered. Default 24 h. */
  retryWindowMs: number;
  /** First retry delay before jitter; doubles per attempt up to 1 h. Default 1 s. */
  backoffBaseMs: number;
  /**
   * Events (and their finished deliveries) older than this are deleted; 0 keeps them for
   * ever. Default 7 days: pull events alone add a row per manifest GET.
   */
  retentionMs: number;
}

export const defaultEventsSettings: Readonly<EventsSettings> = {
  timeoutMs: 10_000,
  retryWindowMs: 24 * 3_600_000,
  backoffBaseMs: 1000,
  retentionMs: 7 * 86_400_000,
};

/** The settings as strings, from flags, the environment or the file. */
export interface EventsSettingsInput {
  eventsTimeout?: string;
  eventsRetryWindow?: string;
  eventsBackoffBase?: string;
  eventsRetention?: string;
}

/** Validates the settings, naming the flag of a bad one. */
export function resolveEventsSettings(input: EventsSettingsInput): EventsSettings {
  const d = defaultEventsSettings;
  const duration = (text: string | undefined, flag: string, fallback: number) => {
    if (text === undefined) return fallback;
    const parsed = parseDurationMs(text);
    if (parsed.error !== undefined) throw new Error(`${flag}: ${parsed.error}`);
    return parsed.value as number;
  };
  const retryWindowMs = duration(input.eventsRetryWindow, "--events-retry-window", d.retryWindowMs);
  const retentionMs =
    input.eventsRetention === "forever"
      ? 0
      : duration(input.eventsRetention, "--events-retention", d.retentionMs);
  // A shorter retention would delete the record of deliveries still being retried.
  if (retentionMs !== 0 && retentionMs < retryWindowMs) {
    throw new Error("--events-retention must be at least --events-retry-window, or forever");
  }
  return {
    timeoutMs: duration(input.eventsTimeout, "--events-timeout", d.timeoutMs),
    retryWindowMs,
    backoffBaseMs: duration(input.eventsBackoffBase, "--events-backoff-base", d.backoffBaseMs),
    retentionMs,
  };
}
