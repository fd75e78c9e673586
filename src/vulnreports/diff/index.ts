export * from "./image-diff.ts";
export * from "./image-scan-data.ts";
export * from "./package-diff.ts";
export * from "./platform-images.ts";
export * from "./stored-match.ts";
export * from "./vulnerability-diff.ts";
