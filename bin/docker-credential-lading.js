#!/usr/bin/env node
import { launch } from "./launcher.js";

await launch(
  import.meta.url,
  async () => {
    const { runCredentialHelper } = await import("../src/cli/credential-helper.ts");
    process.exitCode = await runCredentialHelper(process.argv.slice(2), {
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
      env: process.env,
    });
  },
  process.stdout,
);
