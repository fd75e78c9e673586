export { type BodyRead, maxBodyBytes, readBody } from "./body-reader.ts";
export { createOpenApiRoute } from "./openapi-route.ts";
export {
  matchPathTemplate,
  type Parsed,
  type PathBindings,
  type PathTemplate,
  parsePathTemplate,
} from "./path-template.ts";
export {
  httpStatusForCode,
  renderRestError,
  sendJson,
  sendStatus,
  statusJson,
} from "./render-error.ts";
export { createRestDoor, type RestDoor, type RestDoorOptions } from "./rest-door.ts";
