import { isAbsolute } from "node:path";

/** The folder npm's run-script puts last in front of the PATH it was given (node-gyp's shim). */
const npmPathEnd = /[\\/]@npmcli[\\/]run-script[\\/]lib[\\/]node-gyp-bin[\\/]?$/;
const npmBinDir = /[\\/]node_modules[\\/]\.bin[\\/]?$/;

/** Whether this process runs under npm (npx, npm exec, npm run): npm marks its children. */
export function underNpm(env: Record<string, string | undefined>): boolean {
  return Boolean(
    env.npm_execpath ||
      env.npm_lifecycle_event ||
      Object.keys(env).some((k) => k.startsWith("npm_config_")),
  );
}

/**
 * The PATH the user's shell has, as far as it can be told from `env`: without the folders npm
 * prepends for npx and npm scripts (the `node_modules/.bin` of the package, of every folder
 * above it and of npx's cache, then node-gyp's shim), and without relative entries, which
 * Go's exec.LookPath, and so docker, skopeo and podman, refuse to run commands from.
 */
export function userPath(env: Record<string, string | undefined>): string {
  let entries = (env.PATH ?? "").split(":");
  if (underNpm(env)) {
    const end = entries.findLastIndex((dir) => npmPathEnd.test(dir));
    if (end >= 0) entries = entries.slice(end + 1);
    else {
      const first = entries.findIndex((dir) => !npmBinDir.test(dir));
      entries = first < 0 ? [] : entries.slice(first);
    }
  }
  return entries.filter((dir) => dir !== "" && isAbsolute(dir)).join(":");
}
