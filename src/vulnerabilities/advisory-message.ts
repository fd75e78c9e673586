import { create, type MessageInitShape } from "@bufbuild/protobuf";
import {
  type Advisory,
  type AdvisoryEventSchema,
  AdvisorySchema,
  type EventType,
  type Severity,
  type Severity_Type,
  SeveritySchema,
} from "../gen/lading/vulnerabilities/v2/advisories_pb.js";
import type { AdvisoriesTable } from "../store/metadata/index.ts";
import {
  type AdvisoryEventType,
  advisoryEventTypes,
  falsePositiveTypes,
  type SeverityRecord,
} from "./feeds/feed-records.ts";
import { withBaseScores } from "./feeds/severity-scores.ts";
import type { StoredEvent } from "./import/advisory-row.ts";

/** The EventType enum value of an event type name (enum order = advisoryEventTypes order). */
export function eventTypeEnum(type: string): EventType {
  return (advisoryEventTypes.indexOf(type as AdvisoryEventType) + 1) as EventType;
}

/** The event type name of an EventType enum value; undefined for UNSPECIFIED and unknowns. */
export function eventTypeName(value: number): AdvisoryEventType | undefined {
  return advisoryEventTypes[value - 1];
}

type EventOneof = MessageInitShape<typeof AdvisoryEventSchema>["type"];

/** The typed data of a stored event, as the `type` oneof of an event message. */
export function eventOneof(event: StoredEvent): EventOneof {
  const note = event.note ?? "";
  switch (event.type) {
    case "detection": {
      const d = event.detection ?? { type: "manual" };
      if (d.type === "nvdapi") {
        return {
          case: "detection",
          value: {
            type: {
              case: "nvdapi",
              value: { cpeSearched: d.cpeSearched ?? "", cpeFound: d.cpeFound ?? "" },
            },
          },
        };
      }
      if (d.type === "scan/v1") {
        return {
          case: "detection",
          value: {
            type: {
              case: "scanv1",
              value: {
                subpackageName: d.subpackageName ?? "",
                componentId: d.componentId ?? "",
                componentName: d.componentName ?? "",
                componentVersion: d.componentVersion ?? "",
                componentType: d.componentType ?? "",
                componentLocation: d.componentLocation ?? "",
                scanner: d.scanner ?? "",
              },
            },
          },
        };
      }
      return { case: "detection", value: { type: { case: "manual", value: {} } } };
    }
    case "true-positive-determination":
      return { case: "truePositiveDetermination", value: { note } };
    case "fixed":
      return { case: "fixed", value: { fixedVersion: event.fixedVersion ?? "" } };
    case "false-positive-determination":
      return {
        case: "falsePositiveDetermination",
        value: {
          type: event.falsePositiveType
            ? falsePositiveTypes.indexOf(event.falsePositiveType) + 1
            : 0,
          note,
        },
      };
    case "analysis-not-planned":
      return { case: "analysisNotPlanned", value: { note } };
    case "fix-not-planned":
      return { case: "fixNotPlanned", value: { note } };
    case "pending-upstream-fix":
      return { case: "pendingUpstreamFix", value: { note } };
    case "patched":
      return { case: "patched", value: { patchedVersions: event.patchedVersions ?? [], note } };
  }
}

const severityTypes: Record<SeverityRecord["type"], Severity_Type> = {
  CVSS_V2: 1,
  CVSS_V3: 2,
  CVSS_V4: 3,
  UBUNTU: 4,
};

/**
 * A stored severity as the API message. Rows imported before base scores were computed on
 * import (OSV vectors) are scored here, so no re-import is needed to see them.
 */
export function severityMessage(stored: SeverityRecord): Severity {
  const [s] = withBaseScores([stored]);
  return create(SeveritySchema, {
    type: severityTypes[s.type] ?? 0,
    score: s.score,
    baseScore: s.baseScore ?? 0,
    version: s.baseScore === undefined ? "" : (s.version ?? ""),
  });
}

/** Converts a stored row to the API message, with the severities of its aliases. */
export function advisoryFromRow(row: AdvisoriesTable, severities: readonly Severity[]): Advisory {
  const events = JSON.parse(row.events) as StoredEvent[];
  return create(AdvisorySchema, {
    uid: row.uid,
    advisoryId: row.advisory_id,
    createTime: row.create_time,
    updateTime: row.update_time,
    deleteTime: row.withdrawn_time ?? undefined,
    withdrawnReason: row.withdrawn_reason,
    author: row.author,
    artifactName: row.artifact_name,
    artifactType: row.artifact_type,
    artifactArchitecture: row.artifact_architecture,
    componentName: row.component_name,
    componentType: row.component_type,
    componentLocation: row.component_location,
    aliases: JSON.parse(row.aliases) as string[],
    events: events.map((e) => ({ uid: e.uid, createTime: e.timestamp, type: eventOneof(e) })),
    severities: [...severities],
    packageNamespace: row.package_namespace,
    source: row.source,
    latestEventType: eventTypeEnum(row.latest_event_type),
  });
}
