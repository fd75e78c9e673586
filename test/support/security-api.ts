import type { DescService, JsonObject } from "@bufbuild/protobuf";
import { SecurityAdvisoryService } from "../../src/gen/lading/advisory/v2/security_advisory_pb.js";
import { AdvisoriesService } from "../../src/gen/lading/vulnerabilities/v2/advisories_pb.js";
import { grpcCaller, listRequest, type Result, restCall } from "./api-client.ts";

/** Query parameters: an array is the parameter given several times. */
export type Params = Record<string, string | number | boolean | string[]>;

/** The Vulnerabilities and Advisory APIs over REST or gRPC, answering in proto3 JSON. */
export interface SecurityApi {
  listAdvisories(params?: Params): Promise<Result>;
  getAdvisory(uid: string): Promise<Result>;
  importAdvisories(body: JsonObject): Promise<Result>;
  listDocuments(params: Params): Promise<Result>;
  listMetadata(params: Params): Promise<Result>;
  listResolved(params: Params): Promise<Result>;
}

/** The query string of `params` (arrays as repeated parameters). */
export function queryOf(params: Params): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const v of Array.isArray(value) ? value : [value]) search.append(key, String(v));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

/** The security APIs for `transport` with `token` (none for anonymous calls). */
export function securityApi(
  transport: "rest" | "grpc",
  baseUrl: string,
  token: string | undefined,
): SecurityApi {
  const grpc = grpcCaller(baseUrl, token);
  const call = (
    service: DescService,
    method: string,
    params: Params,
    http: [string, string, JsonObject?],
  ): Promise<Result> =>
    transport === "rest"
      ? restCall(baseUrl, token, http[0], http[1], http[2])
      : grpc(service, method, http[2] ?? listRequest(params));
  return {
    listAdvisories: (p = {}) =>
      call(AdvisoriesService, "listAdvisories", p, [
        "GET",
        `/vulnerabilities/v2/advisories${queryOf(p)}`,
      ]),
    getAdvisory: (uid) =>
      call(AdvisoriesService, "getAdvisory", { uid }, [
        "GET",
        `/vulnerabilities/v2/advisories/${uid}`,
      ]),
    importAdvisories: (body) =>
      call(AdvisoriesService, "importAdvisories", {}, [
        "POST",
        "/vulnerabilities/v2/advisories:import",
        body,
      ]),
    listDocuments: (p) =>
      call(SecurityAdvisoryService, "listDocuments", p, [
        "GET",
        `/advisory/v2/documents${queryOf(p)}`,
      ]),
    listMetadata: (p) =>
      call(SecurityAdvisoryService, "listVulnerabilityMetadata", p, [
        "GET",
        `/advisory/v2/metadata${queryOf(p)}`,
      ]),
    listResolved: (p) =>
      call(SecurityAdvisoryService, "listResolvedVulnsReports", p, [
        "GET",
        `/advisory/v2/images/resolvedVulns${queryOf(p)}`,
      ]),
  };
}
