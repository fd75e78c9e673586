import { type Logger, pino } from "pino";

/** How the server logs. */
export interface LoggerOptions {
  /** pino level: `trace` … `fatal`, or `silent` (tests). Default `info`. */
  level?: string;
}

/**
 * A structured JSON logger (pino) on stdout. Authorization headers and token values are
 * redacted should they ever reach a log call; the access log never passes them.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino({
    level: options.level ?? "info",
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
  });
}
