import type { Kysely } from "kysely";
import type { EventActor } from "../../../events/index.ts";
import {
  type PublishResult,
  publishVersion,
  type StoredLibraryFile,
} from "../../../libraries/index.ts";
import type { MetadataSchema } from "../../../store/metadata/index.ts";
import type { MavenPath } from "./maven-path.ts";

type FilePath = Extract<MavenPath, { kind: "file" }>;

const contentTypes: Record<string, string> = {
  jar: "application/java-archive",
  war: "application/java-archive",
  pom: "application/xml",
  xml: "application/xml",
  module: "application/json",
  json: "application/json",
  asc: "text/plain",
};

/** One stored file of a Maven version to make visible. */
export interface MavenFilePublish {
  orgUid: string;
  path: FilePath;
  stored: StoredLibraryFile;
  /** The pom's description (pomDescription), or "" for other files. */
  description: string;
  actor: EventActor;
  /** The repository URL, the event's source. */
  source: string;
}

/**
 * Adds one file to its version (created by the first file), as `mvn deploy` and
 * `lading admin import libraries` both do. A pom arriving after the version exists (mvn deploy
 * sends the jar first) still gives the version, and the artifact when it is the latest, its
 * description.
 */
export function publishMavenFile(
  db: Kysely<MetadataSchema>,
  file: MavenFilePublish,
): Promise<PublishResult> {
  const { path, description } = file;
  const name = `${path.groupId}:${path.artifactId}`;
  const extension = path.filename.slice(path.filename.lastIndexOf(".") + 1);
  return publishVersion(db, {
    orgUid: file.orgUid,
    ecosystem: "java",
    name,
    displayName: name,
    version: path.version,
    description,
    files: [
      {
        filename: path.filename,
        stored: file.stored,
        contentType: contentTypes[extension] ?? "application/octet-stream",
      },
    ],
    addToExisting: true,
    actor: file.actor,
    source: file.source,
  });
}
