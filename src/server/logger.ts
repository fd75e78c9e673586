import { type DestinationStream, type Logger, pino } from "pino";
import pretty from "pino-pretty";

/** How log lines are written: JSON for machines, one readable line each for people. */
export type LogFormat = "json" | "pretty";

/** How the server logs. */
export interface LoggerOptions {
  /** pino level: `trace` … `fatal`, or `silent` (tests). Default `info`. */
  level?: string;
  /** Default: `pretty` when standard output is a terminal, `json` otherwise. */
  format?: LogFormat;
  /** Where lines go. Default standard output. */
  destination?: DestinationStream;
}

/** The format `lading serve` picks when none is configured. */
export function defaultLogFormat(stdout: { isTTY?: boolean } = process.stdout): LogFormat {
  return stdout.isTTY ? "pretty" : "json";
}

/**
 * A structured logger (pino) with ISO 8601 UTC timestamps. Authorization headers and token
 * values are redacted should they ever reach a log call; the access logs never pass them.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const format = options.format ?? defaultLogFormat();
  const destination =
    format === "pretty"
      ? pretty({
          colorize: options.destination === undefined && process.stdout.isTTY === true,
          singleLine: true,
          translateTime: "UTC:yyyy-mm-dd'T'HH:MM:ss.l'Z'",
          ignore: "pid,hostname",
          destination: options.destination ?? 1,
          sync: true,
        })
      : (options.destination ?? pino.destination(1));
  return pino(
    {
      level: options.level ?? "info",
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          "authorization",
          "*.authorization",
          "headers.authorization",
          "*.headers.authorization",
          "token",
          "*.token",
        ],
        censor: "[redacted]",
      },
    },
    destination,
  );
}
