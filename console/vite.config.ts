import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/**
 * The console's build (docs/console.md): one folder of static files, `console/dist`, served by
 * the API listener. The API's types come from the generated code in `src/gen` (alias `@gen`),
 * so no API shape is written twice. No inline script or style is emitted, as the CSP allows none.
 */
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  plugins: [react()],
  resolve: {
    alias: {
      "@gen": fileURLToPath(new URL("../src/gen", import.meta.url)),
      // The API's capability names (dotted form ↔ enum), derived from the generated enum.
      "@capabilities": fileURLToPath(new URL("../src/auth/capabilities.ts", import.meta.url)),
    },
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 2048,
  },
  server: { fs: { allow: [".."] } },
});
