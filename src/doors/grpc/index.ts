export {
  createGrpcDoor,
  type GrpcDoor,
  type GrpcDoorOptions,
  toConnectError,
} from "./grpc-door.ts";
export { reflectionServices, registerReflection } from "./reflection.ts";
