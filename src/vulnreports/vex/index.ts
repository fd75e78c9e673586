export * from "./openvex-document.ts";
export * from "./vex-status.ts";
