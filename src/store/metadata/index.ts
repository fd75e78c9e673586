export { afterCommit, runInTransaction } from "./ambient-transactions.ts";
export type * from "./events-schema.ts";
export * from "./metadata-store.ts";
export { precompiled } from "./precompiled.ts";
export type * from "./schema.ts";
export { identityExtras } from "./schema.ts";
export type * from "./security-data-schema.ts";
export * from "./settings.ts";
export type * from "./vuln-reports-schema.ts";
