import { parseDurationMs } from "./duration.ts";

/** The garbage collector's schedule and windows (docs/operations.md). */
export interface GcSettings {
  /** Time between scheduled collections; 0: only on demand. Default 1 h. */
  intervalMs: number;
  /** Objects a push relied on within this window are never collected. Default 2 h. */
  graceMs: number;
  /** Manifests named by history records younger than this stay pullable. Default 30 days. */
  historyRetentionMs: number;
}

export const defaultGcSettings: Readonly<GcSettings> = {
  intervalMs: 3_600_000,
  graceMs: 2 * 3_600_000,
  historyRetentionMs: 30 * 86_400_000,
};

/** The settings as strings, from flags, the environment or the file. */
export interface GcSettingsInput {
  gcInterval?: string;
  gcGrace?: string;
  gcHistoryRetention?: string;
}

/**
 * Validates the settings, naming the flag of a bad one. `--gc-interval off` schedules nothing;
 * `--gc-grace 0s` (for tests and drills only) collects whatever nothing reaches at once.
 */
export function resolveGcSettings(input: GcSettingsInput): GcSettings {
  const d = defaultGcSettings;
  const duration = (text: string | undefined, flag: string, fallback: number, zero: string) => {
    if (text === undefined) return fallback;
    if (text === zero) return 0;
    const parsed = parseDurationMs(text);
    if (parsed.error !== undefined) throw new Error(`${flag}: ${parsed.error}`);
    return parsed.value as number;
  };
  return {
    intervalMs: duration(input.gcInterval, "--gc-interval", d.intervalMs, "off"),
    graceMs: duration(input.gcGrace, "--gc-grace", d.graceMs, "0s"),
    historyRetentionMs: duration(
      input.gcHistoryRetention,
      "--gc-history-retention",
      d.historyRetentionMs,
      "0s",
    ),
  };
}
