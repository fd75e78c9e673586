/**
 * FIRST's daily EPSS scores CSV (formats §2.3) as vulnerability records carrying only `epss`.
 * The file is about 300,000 rows, so rows are cut by hand rather than with a CSV library or a
 * regex per row; EPSS values never contain quotes or commas.
 */

import type { FeedInput, FeedParser, ParsedFeed, VulnerabilityRecord } from "./feed-records.ts";
import { metadataFeed } from "./feed-result.ts";
import { isCalendarDate, isCveId } from "./metadata-checks.ts";

const SCORE_DATE = /(?:^|,)\s*score_date:(\d{4}-\d{2}-\d{2})/;
// FIRST publishes the file as epss_scores-YYYY-MM-DD.csv.gz.
const NAME_DATE = /(\d{4}-\d{2}-\d{2})(?!.*\d{4}-\d{2}-\d{2})/;

/** A probability written as a decimal number: finite and within 0–1. */
function probability(text: string): number | undefined {
  if (text === "") return undefined;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 && value <= 1 ? value : undefined;
}

/**
 * Parses one EPSS CSV (already un-gzipped by the caller). The score date comes from the
 * leading `#model_version:…,score_date:YYYY-MM-DD…` comment; a file without that line takes
 * the last YYYY-MM-DD in its file name, and one with neither is refused as a whole, because
 * stamping old scores with today's date would make them look current. Each row becomes
 * `{id, epss: {score, percentile, date}}`; a bad row is rejected as `line N` (counting the
 * comment and header lines) and the rest still import.
 */
export const parseEpss: FeedParser = (input: FeedInput): ParsedFeed => {
  const { parsed, reject } = metadataFeed(input.file);
  const text = input.text.charCodeAt(0) === 0xfeff ? input.text.slice(1) : input.text;
  let start = 0;
  let lineNumber = 0;
  const nextLine = (): string | undefined => {
    if (start >= text.length) return undefined;
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    let line = text.slice(start, end);
    if (line.endsWith("\r")) line = line.slice(0, -1);
    start = end + 1;
    lineNumber++;
    return line;
  };

  let line = nextLine();
  let date: string | undefined;
  if (line?.startsWith("#")) {
    date = SCORE_DATE.exec(line)?.[1];
    if (date === undefined || !isCalendarDate(date)) {
      reject("line 1", "the comment line has no valid score_date");
      return parsed;
    }
    line = nextLine();
  } else {
    date = NAME_DATE.exec(input.file)?.[1];
    if (date === undefined || !isCalendarDate(date)) {
      reject(
        "document",
        "no score date: neither a #…score_date: comment line nor a YYYY-MM-DD in the file name",
      );
      return parsed;
    }
  }
  const header: string = line ?? "";
  if (header.trim() !== "cve,epss,percentile") {
    reject(
      `line ${lineNumber}`,
      `expected the header cve,epss,percentile, got ${JSON.stringify(header.slice(0, 80))}`,
    );
    return parsed;
  }

  for (line = nextLine(); line !== undefined; line = nextLine()) {
    if (line === "") continue;
    const first = line.indexOf(",");
    const second = first < 0 ? -1 : line.indexOf(",", first + 1);
    if (second < 0 || line.indexOf(",", second + 1) >= 0) {
      reject(`line ${lineNumber}`, "expected three columns: cve,epss,percentile");
      continue;
    }
    const id = line.slice(0, first);
    if (!isCveId(id)) {
      reject(
        `line ${lineNumber}`,
        `${JSON.stringify(line.slice(0, Math.min(first, 40)))} is not a CVE id`,
      );
      continue;
    }
    const score = probability(line.slice(first + 1, second));
    const percentile = probability(line.slice(second + 1));
    if (score === undefined || percentile === undefined) {
      reject(
        `line ${lineNumber}`,
        `${score === undefined ? "epss" : "percentile"} is not a number from 0 to 1`,
      );
      continue;
    }
    const record: VulnerabilityRecord = { id, epss: { score, percentile, date } };
    parsed.vulnerabilities.push(record);
  }
  return parsed;
};
