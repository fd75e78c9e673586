import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createOutboundGuard } from "../outbound/index.ts";
import { backoffMs, maxBackoffMs, retryAfterMs } from "./backoff.ts";
import { cloudEventHeaders, encodeValue } from "./cloud-event-headers.ts";
import { parseHttpRequestText } from "./http-request-text.ts";
import { bodyDigest } from "./send-event.ts";
import { sinkProblem } from "./sink-url.ts";

describe("sinkProblem", () => {
  const strict = createOutboundGuard();
  const loopback = createOutboundGuard({ allow: { hosts: [], cidrs: ["127.0.0.0/8"] } });
  it("accepts https, and http to loopback only when loopback is allowed", () => {
    assert.equal(sinkProblem("https://hooks.example.com/x?y=1", strict), undefined);
    assert.equal(sinkProblem("http://127.0.0.1:8080/", loopback), undefined);
    assert.match(sinkProblem("http://127.0.0.1:8080/", strict) ?? "", /--outbound-allow/);
    assert.match(sinkProblem("http://hooks.example.com/", loopback) ?? "", /loopback host/);
    assert.match(sinkProblem("https://a:b@hooks.example.com/", strict) ?? "", /credentials/);
    assert.match(sinkProblem("https://:b@hooks.example.com/", strict) ?? "", /credentials/);
    assert.match(sinkProblem("https://hooks.example.com/#x", strict) ?? "", /fragment/);
    assert.match(sinkProblem("mailto:x@example.com", strict) ?? "", /https/);
    assert.match(sinkProblem("", strict) ?? "", /required/);
    assert.match(sinkProblem(`https://h.example/${"x".repeat(2048)}`, strict) ?? "", /2048/);
  });

  it("refuses internal https sinks unless allowed", () => {
    assert.match(sinkProblem("https://10.0.0.1/", strict) ?? "", /internal address \(private\)/);
    assert.match(sinkProblem("https://localhost/", strict) ?? "", /internal address/);
    assert.equal(sinkProblem("https://localhost:9/", loopback), undefined);
  });
});

describe("backoff", () => {
  it("draws from [0, base·2^(n-1)) capped at one hour", () => {
    assert.equal(
      backoffMs(1, 1000, () => 0.999),
      999,
    );
    assert.equal(
      backoffMs(4, 1000, () => 0.5),
      4000,
    );
    assert.equal(
      backoffMs(1, 1000, () => 0),
      0,
    );
    assert.equal(
      backoffMs(60, 1000, () => 0.5),
      maxBackoffMs / 2,
    );
  });

  it("reads Retry-After in seconds or as a date", () => {
    assert.equal(retryAfterMs("120", 0), 120_000);
    assert.equal(retryAfterMs("Thu, 01 Jan 1970 00:00:10 GMT", 4000), 6000);
    assert.equal(retryAfterMs("999999", 0), maxBackoffMs);
    assert.equal(retryAfterMs("soon", 0), undefined);
    assert.equal(retryAfterMs(null, 0), undefined);
  });
});

describe("cloudEventHeaders", () => {
  const event = {
    id: "9f0c7a4e-0000-4000-8000-000000000001",
    type: "dev.lading.registry.push.v1",
    source: "http://127.0.0.1:5000",
    subject: "a".repeat(40),
    group_uid: "a".repeat(40),
    time: "2026-01-01T00:00:00.000Z",
    body_type: "",
    extensions: JSON.stringify({ digest: "sha256:ab", mediatype: "x/y", "Bad-Name": "no" }),
    data: JSON.stringify({ actor: { subject: "" }, body: {} }),
  };

  it("maps attributes and valid extensions, leaving out an empty actor and body type", () => {
    assert.deepEqual(cloudEventHeaders(event), {
      "Ce-Id": event.id,
      "Ce-Specversion": "1.0",
      "Ce-Source": event.source,
      "Ce-Type": event.type,
      "Ce-Subject": event.subject,
      "Ce-Time": event.time,
      "Ce-Group": event.group_uid,
      "Ce-Audience": "customer",
      "Ce-Digest": "sha256:ab",
      "Ce-Mediatype": "x/y",
    });
  });

  it("percent-encodes what a header may not carry", () => {
    assert.equal(encodeValue('a "b" 100% é\n'), "a %22b%22 100%25 %C3%A9%0A");
  });

  it("digests the body as sha256:<hex>", () => {
    assert.equal(
      bodyDigest("abc"),
      "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });
});

describe("parseHttpRequestText", () => {
  it("reads the request line, headers and body, with CRLF or LF", () => {
    for (const nl of ["\r\n", "\n"]) {
      const text = [
        "POST /hook HTTP/1.1",
        "Ce-Id: 1",
        "X-A: 1",
        "x-a: 2",
        "Content-Length: 4",
        "",
        "body+extra",
      ].join(nl);
      const parsed = parseHttpRequestText(Buffer.from(text));
      assert.equal(parsed.error, undefined);
      assert.equal(parsed.value?.method, "POST");
      assert.equal(parsed.value?.target, "/hook");
      assert.deepEqual(parsed.value?.headers, {
        "ce-id": "1",
        "x-a": "1, 2",
        "content-length": "4",
      });
      assert.equal(parsed.value?.body.toString(), "body");
    }
  });

  it("says what is wrong", () => {
    const error = (text: string) => parseHttpRequestText(Buffer.from(text)).error ?? "";
    assert.match(error("POST /hook HTTP/1.1\r\nA: b\r\n"), /no blank line/);
    assert.match(error("hello\r\n\r\n"), /request line/);
    assert.match(error("POST / HTTP/1.1\r\nno colon\r\n\r\n"), /header line/);
    assert.match(error("POST / HTTP/1.1\r\nContent-Length: 9\r\n\r\nabc"), /has 3 bytes/);
    assert.match(error("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc"), /chunked/);
  });
});
