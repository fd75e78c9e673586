export * from "./eol-tags-service.ts";
export * from "./image-manifests.ts";
export * from "./images-service.ts";
export { resolveRepoPath } from "./registry-access.ts";
export * from "./registry-context.ts";
export * from "./repos-service.ts";
export * from "./tag-history.ts";
export * from "./tags-service.ts";
export * from "./terms-gate.ts";
