export { createOciDoor, type OciDoor, type OciDoorOptions } from "./oci-door.ts";
