import { startLading } from "../../app/index.ts";
import type { LocalVerbNode } from "../command-spec.ts";
import { configFlags, loadConfig } from "./config-flags.ts";

/** `lading serve`: runs the API listener until SIGTERM or SIGINT, then drains and exits. */
export const serveCommand: LocalVerbNode = {
  kind: "local",
  name: "serve",
  summary: "Run the server (API and registry listeners); SIGTERM or SIGINT drains and stops it",
  flags: configFlags,
  examples: ["lading serve --data-dir /var/lib/lading --api-url https://lading.example.com"],
  async run(parsed, out) {
    const lading = await startLading(loadConfig(parsed));
    out.stdout.write(`lading: API on ${lading.apiUrl}, registry on ${lading.registryUrl}\n`);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once("SIGTERM", stop);
      process.once("SIGINT", stop);
    });
    lading.log.info("shutting down: finishing requests in flight");
    await lading.close();
    return 0;
  },
};
