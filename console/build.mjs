// Builds the console into console/dist; run by `npm install` (prepare) and `npm run build:console`.
// Plain JavaScript, so it runs on the Node that runs npm. Quiet unless something is wrong.
import { createRequire } from "node:module";

// `npx lading` links the checkout into npx's cache, and npm runs the linked package's prepare
// script then: a second build of a console `npm install` already built, on every new npx cache,
// which leaves console/dist half-written when the npx run is stopped. Only `npm install` builds.
if (process.env.npm_lifecycle_event === "prepare" && process.env.npm_command === "exec") {
  process.exit(0);
}

const require = createRequire(import.meta.url);
let vite;
try {
  require.resolve("vite/package.json");
  vite = await import("vite");
} catch {
  console.warn(
    "lading: the console is not built (vite is not installed; install dev dependencies)",
  );
  process.exit(0);
}
await vite.build({
  configFile: new URL("./vite.config.ts", import.meta.url).pathname,
  logLevel: "warn",
});
