export * from "./groups-service.ts";
export * from "./iam-context.ts";
export * from "./identities-service.ts";
export * from "./role-bindings-service.ts";
export * from "./roles-service.ts";
