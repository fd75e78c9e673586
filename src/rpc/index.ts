export * from "./call.ts";
export type * from "./raw-route.ts";
