export * from "./catalogue.ts";
export * from "./lading-error.ts";
