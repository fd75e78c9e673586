import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type EventSink, startEventSink } from "../support/event-sink.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { type CliRunner, cliRunner } from "./cli-support.ts";

const cliPath = new URL("../../bin/lading.js", import.meta.url).pathname;

describe("lading events", () => {
  let server: TestServer;
  let cli: CliRunner;
  let sink: EventSink;
  let org: string;
  let uid: string;

  before(async () => {
    server = await startTestServer("sqlite", "acme", { outboundAllow: "127.0.0.1" });
    org = server.org.groupUid;
    cli = await cliRunner({
      LADING_API_URL: server.apiUrl,
      LADING_REGISTRY_URL: server.lading.registryUrl,
      LADING_TOKEN: server.org.token,
    });
    sink = await startEventSink(server.apiUrl, org);
  });
  after(async () => {
    await cli.cleanup();
    await server.close();
    await sink.close();
  });

  it("subscriptions create, list, test and deliveries", async () => {
    uid = (
      await cli.ok(
        "events",
        "subscriptions",
        "create",
        "--parent",
        org,
        "--sink",
        sink.url,
        "-o",
        "id",
      )
    ).trim();
    assert.match(uid, new RegExp(`^${org}/[0-9a-f]{16}$`));
    const listed = JSON.parse(await cli.ok("events", "subscriptions", "list", "-o", "json"));
    assert.deepEqual(
      listed.subscriptions.map((s: { uid: string }) => s.uid),
      [uid],
    );
    const ping = JSON.parse(await cli.ok("events", "subscriptions", "test", uid, "-o", "json"));
    assert.equal(ping.eventType, "dev.lading.events.ping.v1");
    await sink.waitFor(() => sink.accepted().some((r) => r.id === ping.eventId));
    const table = await cli.ok("events", "subscriptions", "deliveries", uid);
    assert.match(table, /dev\.lading\.events\.ping\.v1/);
    assert.match(table, /dev\.lading\.events\.subscription\.created\.v1/);
  });

  it("verify accepts a real delivery and names what is wrong with a tampered one", async () => {
    const [receipt] = sink.accepted("dev.lading.events.subscription.created");
    const good = join(cli.home, "delivery.http");
    writeFileSync(good, receipt.text);
    assert.equal(
      (await cli.ok("events", "verify", "--group", org, "--file", good)).trim(),
      `OK dev.lading.events.subscription.created.v1 ${receipt.id} ${uid}`,
    );
    const fromStdin = await cli.run(
      ["events", "verify", "--group", org],
      {},
      { stdin: receipt.text },
    );
    assert.equal(fromStdin.code, 0, fromStdin.stderr);

    const tampered = join(cli.home, "tampered.http");
    writeFileSync(tampered, receipt.text.replace(`"sink"`, `"sinK"`));
    const bad = await cli.run(["events", "verify", "--group", org, "--file", tampered]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /not verified \(403\): webhook\.digest does not match/);

    const otherGroup = await cli.run([
      "events",
      "verify",
      "--group",
      `${org}/0123456789abcdef`,
      "--file",
      good,
    ]);
    assert.equal(otherGroup.code, 1);
    assert.match(otherGroup.stderr, /sub is "webhook:[0-9a-f]{40}", expected "webhook:[0-9a-f/]+"/);

    const unsigned = join(cli.home, "unsigned.http");
    writeFileSync(unsigned, receipt.text.replace(/^Authorization: .*\r\n/im, ""));
    const anonymous = await cli.run(["events", "verify", "--group", org, "--file", unsigned]);
    assert.equal(anonymous.code, 1);
    assert.match(anonymous.stderr, /\(401\): no Authorization: Bearer token/);
  });

  it("receive refuses an unsigned delivery with 401 and gives up at its timeout", async () => {
    const probe = createServer();
    const port = await new Promise<number>((resolve) =>
      probe.listen(0, "127.0.0.1", () => resolve((probe.address() as AddressInfo).port)),
    );
    await new Promise((resolve) => probe.close(resolve));
    const running = cli.run([
      "events",
      "receive",
      "--group",
      org,
      "--listen",
      `127.0.0.1:${port}`,
      "--until",
      "dev.lading.registry.push.v1",
      "--timeout",
      "3s",
    ]);
    let status = 0;
    // Up to 30 s: a loaded machine starts the CLI process slowly.
    for (let i = 0; i < 300 && status === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await fetch(`http://127.0.0.1:${port}/`, {
        method: "POST",
        headers: { "ce-id": "1", "ce-source": "x", "ce-type": "t", "ce-specversion": "1.0" },
        body: "{}",
      }).then(
        (r) => r.status,
        () => 0,
      );
    }
    assert.equal(status, 401);
    const ran = await running;
    assert.equal(ran.code, 1);
    assert.match(ran.stdout, /refused \(401\): no Authorization: Bearer token/);
    assert.match(ran.stderr, /no dev\.lading\.registry\.push\.v1 before the timeout/);
  });

  it("receive stops with 0 on a SIGTERM sent the instant it says it is receiving", async () => {
    for (let round = 0; round < 3; round++) {
      const child = spawn(
        process.execPath,
        [cliPath, "events", "receive", "--group", org, "--listen", "127.0.0.1:0"],
        { env: cli.env, stdio: ["ignore", "pipe", "pipe"] },
      );
      const closed = new Promise<[number | null, string | null]>((resolve) =>
        child.on("close", (code, signal) => resolve([code, signal])),
      );
      child.stderr.on("data", (d: Buffer) => {
        if (d.toString().includes("receiving on")) child.kill("SIGTERM");
      });
      assert.deepEqual(await closed, [0, null], `round ${round}`);
    }
  });

  it("delete", async () => {
    assert.equal((await cli.ok("events", "subscriptions", "delete", uid)).trim(), `deleted ${uid}`);
  });
});
