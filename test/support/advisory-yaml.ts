import { stringify } from "yaml";

/** One event as the advisory YAML documents write it. */
export interface YamlEvent {
  timestamp: string;
  type: string;
  data?: Record<string, unknown>;
}

/** One advisory of a document. */
export interface YamlAdvisory {
  id: string;
  aliases: string[];
  events: YamlEvent[];
}

/** An advisory YAML document (formats §1.1) for package `name`. */
export function advisoryYaml(
  name: string,
  advisories: YamlAdvisory[],
  schemaVersion = "2.0.2",
): string {
  return stringify({ "schema-version": schemaVersion, package: { name }, advisories });
}

/** The events of a typical fixed advisory: detected by a scanner, then fixed. */
export function detectedThenFixed(detected: string, fixed: string, version: string): YamlEvent[] {
  return [
    {
      timestamp: detected,
      type: "detection",
      data: {
        type: "scan/v1",
        data: {
          subpackageName: "pkg",
          componentID: "abc",
          componentName: "github.com/example/lib",
          componentVersion: "v1.0.0",
          componentType: "go-module",
          componentLocation: "/usr/bin/pkg",
          scanner: "grype",
        },
      },
    },
    { timestamp: fixed, type: "fixed", data: { "fixed-version": version } },
  ];
}
