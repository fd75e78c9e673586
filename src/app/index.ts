export * from "./bootstrap.ts";
export * from "./lading.ts";
