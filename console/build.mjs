// Builds the console into console/dist; run by `npm install` (prepare) and `npm run build:console`.
// Plain JavaScript, so it runs on the Node that runs npm. Quiet unless something is wrong.
import { createRequire } from "node:module";

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
