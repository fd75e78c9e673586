import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { Ordering, VersionScheme } from "../version-scheme.ts";

/** What an order fixture holds: expected pairs and texts that must be refused. */
export interface OrderFixture {
  pairs: { a: string; b: string; expected: Ordering; line: number }[];
  invalid: { text: string; line: number }[];
}

/**
 * Reads an order fixture. A chain `1.0 < 1.1 = 1.1.0 < 2` states the order of every pair in
 * it; a line starting with `<` or `=` continues the chain above; a blank line ends it. A line
 * starting with `!` lists texts the scheme must refuse. `#` starts a comment.
 */
export function readOrderFixture(url: URL): OrderFixture {
  const fixture: OrderFixture = { pairs: [], invalid: [] };
  let chain: { text: string; rank: number; line: number }[] = [];
  const flush = () => {
    for (let i = 0; i < chain.length; i++) {
      for (let j = i + 1; j < chain.length; j++) {
        const [x, y] = [chain[i], chain[j]];
        fixture.pairs.push({
          a: x.text,
          b: y.text,
          expected: x.rank < y.rank ? -1 : 0,
          line: y.line,
        });
      }
    }
    chain = [];
  };
  const lines = readFileSync(url, "utf8").split("\n");
  for (const [index, raw] of lines.entries()) {
    const line = index + 1;
    const tokens = raw
      .replace(/(^|\s)#.*$/, "")
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    if (tokens.length === 0) {
      flush();
      continue;
    }
    if (tokens[0] === "!") {
      for (const text of tokens.slice(1)) fixture.invalid.push({ text, line });
      continue;
    }
    if (tokens[0] !== "<" && tokens[0] !== "=") {
      flush();
      chain.push({ text: tokens[0], rank: 0, line });
      tokens.shift();
    }
    assert.ok(chain.length > 0 && tokens.length % 2 === 0, `fixture line ${line} is malformed`);
    for (let i = 0; i < tokens.length; i += 2) {
      const op = tokens[i];
      assert.ok(op === "<" || op === "=", `fixture line ${line}: unknown operator ${op}`);
      const rank = chain[chain.length - 1].rank + (op === "<" ? 1 : 0);
      chain.push({ text: tokens[i + 1], rank, line });
    }
  }
  flush();
  return fixture;
}

/**
 * Checks every pair of a fixture both ways round and every refusal; reports all mismatches at
 * once. Returns the number of pairs checked.
 */
export function checkOrderFixture(scheme: VersionScheme, url: URL): number {
  const fixture = readOrderFixture(url);
  const failures: string[] = [];
  for (const { a, b, expected, line } of fixture.pairs) {
    const forward = scheme.compareText(a, b);
    const backward = scheme.compareText(b, a);
    if (forward.error !== undefined) failures.push(`line ${line}: ${forward.error}`);
    else if (forward.value !== expected || backward.value !== -expected) {
      failures.push(`line ${line}: ${a} vs ${b} gave ${forward.value}, expected ${expected}`);
    }
  }
  for (const { text, line } of fixture.invalid) {
    if (scheme.isValid(text)) failures.push(`line ${line}: ${text} was accepted`);
  }
  assert.deepEqual(failures.slice(0, 25), [], `${failures.length} mismatches`);
  return fixture.pairs.length;
}
