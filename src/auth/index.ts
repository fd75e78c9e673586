export type * from "./principal.ts";
