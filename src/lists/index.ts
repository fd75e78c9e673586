export * from "./count-plan.ts";
export * from "./list-engine.ts";
export * from "./list-query.ts";
export * from "./order-by.ts";
export * from "./page-token.ts";
export { visibleTo } from "./scope-terms.ts";
