export * from "./blob-store.ts";
