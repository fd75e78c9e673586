import { parseArgs } from "node:util";
import { startLading } from "../../app/index.ts";
import { resolveConfig } from "../../config/index.ts";
import { configFromFlags, configOptions } from "./config-flags.ts";

/** `lading serve`: runs the API listener until SIGTERM or SIGINT, then drains and exits. */
export async function serve(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: configOptions, strict: true });
  const lading = await startLading(resolveConfig(configFromFlags(values)));
  process.stdout.write(`lading: API on ${lading.apiUrl}, registry on ${lading.registryUrl}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  });
  lading.log.info("shutting down: finishing requests in flight");
  await lading.close();
  return 0;
}
