#!/usr/bin/env node
import { runCredentialHelper } from "../src/cli/credential-helper.ts";

process.exitCode = await runCredentialHelper(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
