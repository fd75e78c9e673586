export * from "./image-insights-service.ts";
