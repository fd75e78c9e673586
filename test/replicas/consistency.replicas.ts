import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, it } from "node:test";
import { describe } from "../support/counted-describe.ts";
import { nginxPath } from "../support/nginx.ts";
import { basicToken, ociClient } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import { type ReplicaCluster, startReplicaCluster } from "../support/replica-cluster.ts";

const skip = existsSync(nginxPath) ? false : "nginx is not installed (Debian's nginx-light)";
const accept = "application/vnd.oci.image.manifest.v1+json";

describe("three replicas behind nginx: shared state", { skip }, () => {
  let c: ReplicaCluster;
  let token: string;
  /** A registry client of the load balancer, and one of each replica directly. */
  let lb: ReturnType<typeof ociClient>;
  let direct: ReturnType<typeof ociClient>[];
  before(async () => {
    c = await startReplicaCluster(3);
    token = await c.token(c.org.identityUid, c.host);
    lb = ociClient(c.registryUrl, token);
    direct = c.replicas.map((r) => ociClient(`http://${r.registryAddress}`, token));
  });
  after(() => c?.close());

  const digestOn = async (client: ReturnType<typeof ociClient>, path: string) => {
    const res = await client.fetch(path, { headers: { accept } });
    await res.arrayBuffer();
    return res.status === 200 ? res.headers.get("docker-content-digest") : res.status;
  };

  it("loses no history record when every replica moves one tag at once", async () => {
    const images = Array.from({ length: 24 }, (_, i) => buildImage(`move ${i}`));
    for (const image of images) {
      for (const blob of image.blobs.values()) await lb.pushBlob("acme/moves", blob);
    }
    const answers = await Promise.all(
      images.map((image, i) => direct[i % 3].putManifest("acme/moves", "hot", image.manifest)),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      images.map(() => 201),
    );
    const history = await lb.fetch("/v2/acme/moves/_lading/history/hot");
    assert.equal(history.status, 200);
    const records = ((await history.json()) as { history: { digest: string }[] }).history;
    assert.deepEqual(
      records.map((r) => r.digest).sort(),
      images.map((i) => i.descriptor.digest).sort(),
      "one record per move, none lost",
    );
    const current = await digestOn(lb, "/v2/acme/moves/manifests/hot");
    assert.equal(current, records.at(-1)?.digest, "the tag points where its last record says");
  });

  it("never serves a tag or manifest another replica moved or deleted", async () => {
    const [a, b] = [buildImage("before the move"), buildImage("after the move")];
    for (const image of [a, b]) {
      for (const blob of image.blobs.values()) await lb.pushBlob("acme/stale", blob);
      assert.equal(
        (await lb.putManifest("acme/stale", image.descriptor.digest, image.manifest)).status,
        201,
      );
    }
    for (let round = 0; round < 3; round++) {
      assert.equal((await direct[0].putManifest("acme/stale", "t", a.manifest)).status, 201);
      // Every replica reads it (and whatever it caches is warm).
      for (const client of direct) {
        assert.equal(await digestOn(client, "/v2/acme/stale/manifests/t"), a.descriptor.digest);
      }
      // Moved through replica 1; replicas 0 and 2 answer the new digest on the very next request.
      assert.equal((await direct[1].putManifest("acme/stale", "t", b.manifest)).status, 201);
      for (const client of direct) {
        assert.equal(await digestOn(client, "/v2/acme/stale/manifests/t"), b.descriptor.digest);
      }
      // The tag deleted through replica 2: gone everywhere at once.
      assert.equal(
        (await direct[2].fetch("/v2/acme/stale/manifests/t", { method: "DELETE" })).status,
        202,
      );
      for (const client of direct) {
        assert.equal(await digestOn(client, "/v2/acme/stale/manifests/t"), 404);
      }
    }
    // A manifest deleted by digest through one replica is gone from the others, which served it.
    for (const client of direct) {
      assert.equal(
        await digestOn(client, `/v2/acme/stale/manifests/${a.descriptor.digest}`),
        a.descriptor.digest,
      );
    }
    const gone = await direct[0].fetch(`/v2/acme/stale/manifests/${a.descriptor.digest}`, {
      method: "DELETE",
    });
    assert.equal(gone.status, 202);
    for (const client of direct) {
      assert.equal(await digestOn(client, `/v2/acme/stale/manifests/${a.descriptor.digest}`), 404);
    }
  });

  it("accepts API, registry and page tokens minted by one replica on every replica", async () => {
    const image = buildImage("token check");
    await lb.pushImage("acme/tokens", "latest", image);
    const cliToken = await c.token(c.org.identityUid);
    for (const minter of c.replicas) {
      // An API token from this replica's token exchange.
      const exchanged = await fetch(`http://${minter.apiAddress}/sts/exchange`, {
        headers: { authorization: `Bearer ${cliToken}` },
      });
      assert.equal(exchanged.status, 200);
      const apiToken = ((await exchanged.json()) as { token: string }).token;
      // A registry token from this replica's /token.
      const issued = await fetch(
        `http://${minter.registryAddress}/token?scope=repository:acme/tokens:pull`,
        { headers: { authorization: basicToken(token) } },
      );
      assert.equal(issued.status, 200);
      const registryToken = ((await issued.json()) as { token: string }).token;
      for (const user of c.replicas) {
        const api = await fetch(
          `http://${user.apiAddress}/iam/v2/identities/${c.org.identityUid}`,
          {
            headers: { authorization: `Bearer ${apiToken}` },
          },
        );
        assert.equal(api.status, 200, `API token of replica ${minter.index} on ${user.index}`);
        const pulled = await ociClient(`http://${user.registryAddress}`, registryToken).fetch(
          "/v2/acme/tokens/manifests/latest",
          { headers: { accept } },
        );
        assert.equal(pulled.status, 200, `registry token of ${minter.index} on ${user.index}`);
      }
    }
    for (const name of ["p1", "p2", "p3", "p4"]) {
      const made = await fetch(`${c.apiUrl}/iam/v2/identities/${c.org.groupUid}`, {
        method: "POST",
        headers: { authorization: `Bearer ${cliToken}`, "content-type": "application/json" },
        body: JSON.stringify({ name }),
      });
      assert.equal(made.status, 200, await made.text());
    }
    const list = async (replica: number, pageToken?: string) => {
      const query = new URLSearchParams({ page_size: "2", order_by: "name" });
      if (pageToken) query.set("page_token", pageToken);
      const res = await fetch(
        `http://${c.replicas[replica].apiAddress}/iam/v2/identities?${query}`,
        { headers: { authorization: `Bearer ${cliToken}` } },
      );
      assert.equal(res.status, 200, await res.clone().text());
      return (await res.json()) as { identities: { name: string }[]; nextPageToken?: string };
    };
    const first = await list(0);
    assert.ok(first.nextPageToken);
    const seconds = await Promise.all([1, 2].map((r) => list(r, first.nextPageToken)));
    assert.deepEqual(seconds[0].identities, seconds[1].identities);
    const names = [...first.identities, ...seconds[0].identities].map((i) => i.name);
    assert.equal(
      new Set(names).size,
      4,
      "the second page, read on other replicas, continues the first",
    );
  });
});
