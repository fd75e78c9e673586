import type { Migration, MigrationProvider } from "kysely";
import * as iam from "./0001-iam.ts";
import * as listCounts from "./0002-list-counts.ts";
import * as registry from "./0003-registry.ts";
import * as federation from "./0004-federation.ts";
import * as securityData from "./0005-security-data.ts";
import * as vulnReports from "./0006-vuln-reports.ts";
import * as events from "./0007-events.ts";
import * as libraries from "./0008-libraries.ts";
import * as eventRetention from "./0009-event-retention.ts";
import * as orgVulnerabilities from "./0010-org-vulnerabilities.ts";
import * as libraryDeprecations from "./0012-library-deprecations.ts";
import * as registryGc from "./0013-registry-gc.ts";
import * as tagLifecycle from "./0014-tag-lifecycle.ts";
import * as uploadWriter from "./0015-upload-writer.ts";

/** Every migration, in order. Names never change once released. */
export const migrationProvider: MigrationProvider = {
  async getMigrations(): Promise<Record<string, Migration>> {
    return {
      "0001-iam": iam,
      "0002-list-counts": listCounts,
      "0003-registry": registry,
      "0004-federation": federation,
      "0005-security-data": securityData,
      "0006-vuln-reports": vulnReports,
      "0007-events": events,
      "0008-libraries": libraries,
      "0009-event-retention": eventRetention,
      "0010-org-vulnerabilities": orgVulnerabilities,
      "0012-library-deprecations": libraryDeprecations,
      "0013-registry-gc": registryGc,
      "0014-tag-lifecycle": tagLifecycle,
      "0015-upload-writer": uploadWriter,
    };
  },
};
