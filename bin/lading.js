#!/usr/bin/env node
import { launch } from "./launcher.js";

await launch(import.meta.url, async () => {
  const { main } = await import("../src/cli/main.ts");
  process.exitCode = await main(process.argv.slice(2));
});
