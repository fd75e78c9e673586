import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { it } from "node:test";
import { createLogger, defaultLogFormat } from "./logger.ts";

const capture = () => {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, destination };
};

it("writes JSON lines with ISO timestamps, and redacts tokens", () => {
  const { lines, destination } = capture();
  createLogger({ format: "json", destination }).info({ token: "secret", n: 1 }, "hello");
  const line = JSON.parse(lines[0]);
  assert.match(line.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(line.msg, "hello");
  assert.equal(line.token, "[redacted]");
});

it("writes one readable line per entry in the pretty format", () => {
  const { lines, destination } = capture();
  const log = createLogger({ format: "pretty", destination });
  log.info({ requestId: "r1", status: 200, authorization: "Bearer x" }, "request");
  const text = lines.join("");
  assert.equal(text.trim().split("\n").length, 1);
  assert.match(text, /^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\] INFO: request/);
  assert.match(text, /"requestId":"r1"/);
  assert.doesNotMatch(text, /Bearer x/);
});

it("picks pretty on a terminal and JSON otherwise", () => {
  assert.equal(defaultLogFormat({ isTTY: true }), "pretty");
  assert.equal(defaultLogFormat({ isTTY: false }), "json");
  assert.equal(defaultLogFormat({}), "json");
});
