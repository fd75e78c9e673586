export * from "./auth-errors.ts";
export * from "./authenticator.ts";
export * from "./built-in-roles.ts";
export * from "./capabilities.ts";
export * from "./issuer-routes.ts";
export type * from "./principal.ts";
export * from "./signing-keys.ts";
export * from "./token-issuer.ts";
export * from "./upstream-verifier.ts";
