export * from "./access.ts";
export * from "./call.ts";
export * from "./define-resource.ts";
export * from "./error-details.ts";
export * from "./immutable-output.ts";
export type * from "./raw-route.ts";
export * from "./update-mask.ts";
export * from "./validate.ts";
export * from "./visible-rows.ts";
