export * from "./artifacts-service.ts";
export * from "./ecosystems.ts";
export * from "./file-name.ts";
export * from "./library-error.ts";
export * from "./publish-version.ts";
export * from "./rank-versions.ts";
export * from "./store-library-file.ts";
export * from "./version-advisories.ts";
