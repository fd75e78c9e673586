export * from "./tag-history.ts";
