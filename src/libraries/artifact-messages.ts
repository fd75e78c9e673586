import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  AdvisoryStatus,
  type ArtifactSchema,
  type ArtifactVersionSchema,
  Ecosystem as EcosystemEnum,
} from "../gen/lading/libraries/v2/libraries_pb.js";
import type { LibraryArtifactsTable, LibraryVersionsTable } from "../store/metadata/index.ts";
import type { Ecosystem } from "./ecosystems.ts";
import { packageUrl, type VersionAdvisoryEntry } from "./version-advisories.ts";

/** The API's Ecosystem values of the ecosystems Lading serves. */
export const ecosystemEnums: Readonly<Record<Ecosystem, EcosystemEnum>> = Object.freeze({
  python: EcosystemEnum.PYTHON,
  javascript: EcosystemEnum.JAVASCRIPT,
  java: EcosystemEnum.JAVA,
});

/** The ecosystem of an API Ecosystem value; undefined for UNSPECIFIED and unknown numbers. */
export function ecosystemOf(value: EcosystemEnum): Ecosystem | undefined {
  const found = Object.entries(ecosystemEnums).find(([, v]) => v === value);
  return found?.[0] as Ecosystem | undefined;
}

/** The API message of an artifact row. */
export function artifactFromRow(
  row: LibraryArtifactsTable,
): MessageInitShape<typeof ArtifactSchema> {
  return {
    uid: row.uid,
    name: row.name,
    displayName: row.display_name,
    description: row.description,
    ecosystem: ecosystemEnums[row.ecosystem as Ecosystem] ?? EcosystemEnum.UNSPECIFIED,
    latestVersion: row.latest_version,
    versionCount: Number(row.version_count),
    createTime: row.create_time,
    updateTime: row.update_time,
    parent: row.parent_uid,
  };
}

/** The API message of a version row of `artifact`, with its advisories. */
export function versionFromRow(
  row: LibraryVersionsTable,
  artifact: LibraryArtifactsTable,
  advisories: readonly VersionAdvisoryEntry[],
): MessageInitShape<typeof ArtifactVersionSchema> {
  return {
    uid: row.uid,
    name: artifact.name,
    version: row.version,
    description: row.description,
    createTime: row.create_time,
    updateTime: row.update_time,
    sizeBytes: BigInt(row.size_bytes),
    purl: packageUrl(artifact.ecosystem as Ecosystem, artifact.name, row.version),
    advisories: advisories.map((a) => ({
      advisoryId: a.advisoryId,
      aliases: a.aliases,
      status: a.status === "affected" ? AdvisoryStatus.AFFECTED : AdvisoryStatus.FIXED,
      fixedVersion: a.fixedVersion,
    })),
  };
}
