export {
  createLibrariesDoor,
  type LibrariesDoor,
  type LibrariesDoorOptions,
} from "./libraries-door.ts";
