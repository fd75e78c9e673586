export {
  type ConsoleFiles,
  type ConsoleFilesOptions,
  consoleCsp,
  createConsoleFiles,
  defaultConsoleDir,
} from "./console-files.ts";
