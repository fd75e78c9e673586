import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { restCall } from "../support/api-client.ts";
import { type EventSink, type Receipt, startEventSink } from "../support/event-sink.ts";
import { ok } from "../support/matrix.ts";
import { ociClient, requestToken } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";

const pullType = "dev.lading.registry.pull.v1";

/**
 * Events delivered to an organisation never identify callers of another organisation: the
 * public organisation hears of every pull of its free tier, but a pull by anyone without a
 * grant there (anonymous, or signed in to another organisation, with a Lading or a registry
 * token) carries no actor, no address and no user agent. Its own callers stay named.
 */
for (const pair of registryPairs) {
  describe(`pull events of the public organisation name only its own callers [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let sink: EventSink;
    let digest = "";
    const path = "/v2/public/lib/manifests/latest";

    /** GETs `path` with `authorization` and user agent `agent`; waits for its pull event. */
    async function pull(authorization: string, agent: string): Promise<Receipt> {
      const before = sink.accepted(pullType).length;
      const res = await fetch(`${r.registryUrl}${path}`, {
        headers: { authorization, "user-agent": agent },
      });
      assert.equal(res.status, 200, await res.text());
      await sink.waitFor(() => sink.accepted(pullType).length > before, 30_000);
      return sink.accepted(pullType)[before];
    }

    before(async () => {
      r = await startRegistryServer(pair, {
        eventsAllowHttpLoopback: "true",
        eventsBackoffBase: "50ms",
      });
      const server = r.server;
      sink = await startEventSink(server.apiUrl, r.publicOrg.groupUid);
      const apiToken = await server.token(r.publicOrg.identityUid);
      ok(
        await restCall(
          server.apiUrl,
          apiToken,
          "POST",
          `/events/v2/subscriptions/${r.publicOrg.groupUid}`,
          { sink: sink.url, typePrefix: "dev.lading.registry.pull" },
        ),
      );
      digest = await ociClient(r.registryUrl, r.publicOrg.token).pushImage(
        "public/lib",
        "latest",
        buildImage("free"),
      );
    });
    after(async () => {
      await r?.close();
      await sink?.close();
    });

    /** Asserts that `receipt` is a pull of the free tier naming nobody. */
    function assertAnonymous(receipt: Receipt, agent: string) {
      assert.equal(receipt.refused, "");
      assert.equal(receipt.headers["ce-actor"], undefined, "no Ce-Actor");
      const data = JSON.parse(receipt.body);
      assert.deepEqual(data.actor, { subject: "" });
      assert.equal(data.body.remote_address, "");
      assert.equal(data.body.user_agent, "");
      // What the organisation still learns: which of its images was pulled, how and when.
      assert.equal(data.body.repository, "public/lib");
      assert.equal(data.body.tag, "latest");
      assert.equal(data.body.digest, digest);
      assert.equal(data.body.method, "GET");
      const ce = Object.entries(receipt.headers).filter(([name]) => name.startsWith("ce-"));
      const said = JSON.stringify([receipt.body, ce]);
      for (const secret of [agent, r.server.org.identityUid, r.server.org.groupUid]) {
        assert.ok(!said.includes(secret), `the delivery names ${secret}`);
      }
    }

    it("a Lading token of another organisation", async () => {
      assertAnonymous(await pull(`Bearer ${r.ownerToken}`, "acme-lading/1.0"), "acme-lading/1.0");
    });

    it("a registry token of another organisation", async () => {
      const issued = await requestToken(
        r.registryUrl,
        ["repository:public/lib:pull"],
        `Bearer ${r.ownerToken}`,
      );
      assert.equal(issued.status, 200);
      const receipt = await pull(`Bearer ${issued.body.token}`, "acme-registry/1.0");
      assertAnonymous(receipt, "acme-registry/1.0");
    });

    it("an anonymous registry token", async () => {
      const issued = await requestToken(r.registryUrl, ["repository:public/lib:pull"]);
      assert.equal(issued.status, 200);
      assertAnonymous(await pull(`Bearer ${issued.body.token}`, "anon/1.0"), "anon/1.0");
    });

    it("the organisation's own callers are named, with address and user agent", async () => {
      const receipt = await pull(`Bearer ${r.publicOrg.token}`, "own/1.0");
      const owner = r.publicOrg.identityUid;
      assert.equal(receipt.headers["ce-actor"], owner);
      const data = JSON.parse(receipt.body);
      assert.equal(data.actor.subject, owner);
      assert.match(data.body.remote_address, /127\.0\.0\.1$/);
      assert.equal(data.body.user_agent, "own/1.0");
    });
  });
}
