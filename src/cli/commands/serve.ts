import { constants } from "node:os";
import { startLading } from "../../app/index.ts";
import type { LocalVerbNode } from "../command-spec.ts";
import { configFilePath, configFlags, loadConfig } from "./config-flags.ts";

/** `lading serve`: runs the API listener until SIGTERM or SIGINT, then drains and exits. */
export const serveCommand: LocalVerbNode = {
  kind: "local",
  name: "serve",
  summary: "Run the server (API and registry listeners); SIGTERM or SIGINT drains and stops it",
  flags: configFlags,
  examples: ["lading serve --data-dir /var/lib/lading --api-url https://lading.example.com"],
  async run(parsed, out) {
    // Listen for the signals before anything says the server is up: a supervisor may send
    // SIGTERM the moment it reads the ready line, and with no listener Node dies on the spot.
    // A signal during start-up still stops at once, with the exit code the signal would give.
    let started = false;
    const stopRequested = new Promise<void>((resolve) => {
      const stop = (signal: NodeJS.Signals) => {
        if (started) resolve();
        else process.exit(128 + (constants.signals[signal] ?? 0));
      };
      process.once("SIGTERM", stop);
      process.once("SIGINT", stop);
    });
    const lading = await startLading(loadConfig(parsed));
    started = true;
    // A lading.yaml left in the folder changes what a plain `lading serve` does: say so.
    const file = configFilePath(parsed);
    out.stdout.write(
      file === undefined
        ? "lading: no config file (settings from flags, environment and defaults)\n"
        : `lading: settings from ${file} (then environment, then flags)\n`,
    );
    out.stdout.write(`lading: API on ${lading.apiUrl}, registry on ${lading.registryUrl}\n`);
    await stopRequested;
    lading.log.info("shutting down: finishing requests in flight");
    await lading.close();
    return 0;
  },
};
