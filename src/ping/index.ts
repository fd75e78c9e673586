export * from "./ping-service.ts";
