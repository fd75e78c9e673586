export * from "./advisory-id.ts";
export {
  type AdvisoryYamlOptions,
  createAdvisoryYamlParser,
  parseAdvisoryYaml,
} from "./advisory-yaml-parser.ts";
export * from "./feed-formats.ts";
export * from "./feed-records.ts";
export { parseOpenVex } from "./openvex-parser.ts";
export { osvWithdrawnReason, parseOsv } from "./osv-parser.ts";
export { cvssVersionOf, withBaseScores } from "./severity-scores.ts";
