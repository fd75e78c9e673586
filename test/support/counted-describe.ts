import { it, describe as nodeDescribe, type TestOptions } from "node:test";

type SuiteBody = () => void;

/**
 * node:test's `describe`, except that a skipped suite is counted: node:test counts no test of
 * a skipped `describe`, so a suite skipped because a tool is not installed would leave the
 * summary at `skipped 0`. Here such a suite becomes one skipped test with the suite's title and
 * the reason, so every skip shows in the summary, and CI, which fails on any skip, sees it.
 * Suites that may skip import `describe` from here instead of node:test.
 */
export function describe(title: string, options: TestOptions | SuiteBody, body?: SuiteBody): void {
  if (typeof options === "function") return void nodeDescribe(title, options);
  if (options.skip) return void it(title, { skip: options.skip }, () => {});
  nodeDescribe(title, options, body);
}
