import { admin } from "./commands/admin.ts";
import { serve } from "./commands/serve.ts";

const usage = `lading: a self-hostable container platform

usage:
  lading serve [--data-dir DIR] [--api-listen HOST:PORT] [--api-url URL] [--database-url URL]
               [--tls-cert FILE --tls-key FILE] [--log-level LEVEL]
  lading admin migrate | bootstrap | token   (lading admin for details)

Each flag has an environment variable: LADING_DATA_DIR, LADING_API_LISTEN, LADING_API_URL,
LADING_DATABASE_URL, LADING_TLS_CERT, LADING_TLS_KEY, LADING_LOG_LEVEL.
`;

/** Runs the CLI and returns the exit code. */
export async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  try {
    if (command === "serve") return await serve(rest);
    if (command === "admin") return await admin(rest);
    if (command === "help" || command === "--help" || command === "-h") {
      process.stdout.write(usage);
      return 0;
    }
    process.stderr.write(usage);
    return 2;
  } catch (error) {
    const e = error as { code?: string; message?: string };
    process.stderr.write(`lading: ${e.message ?? String(error)}\n`);
    return e.code?.startsWith("ERR_PARSE_ARGS") ? 2 : 1;
  }
}
