export * from "./issuer-routes.ts";
export * from "./sign-in-routes.ts";
export * from "./sign-in-tokens.ts";
