export * from "./uidp.ts";
