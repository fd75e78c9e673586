import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { generateKeyPair, SignJWT } from "jose";
import { buildImage, writeLayout } from "../support/oci-layout.ts";
import { createPullToken, pullTokenIssuer } from "../support/pull-token.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";

const run = promisify(execFile);
const registryPull = "5cb68e21494f5f35bdeffa1a24542addcf36ecea";

/** Runs skopeo; resolves to stdout, rejects with its stderr. */
async function skopeo(...args: string[]): Promise<string> {
  try {
    return (await run("skopeo", args, { encoding: "utf8" })).stdout;
  } catch (error) {
    const e = error as { stderr?: string };
    throw new Error(`skopeo ${args[0]} failed: ${e.stderr ?? String(error)}`);
  }
}

/** Pull tokens: a static-key identity's self-signed JWT as Basic credentials of the registry. */
for (const pair of registryPairs) {
  describe(`pull tokens [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    const issuer = pullTokenIssuer;
    const api = (method: string, path: string, body?: unknown) =>
      fetch(`${r.server.apiUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${r.server.org.token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (res) => ({
        status: res.status,
        body: (await res.json()) as Record<string, string>,
      }));
    const tokenStatus = async (user: string, password: string) =>
      (
        await fetch(`${r.registryUrl}/token?service=${r.host}&scope=repository:acme/app:pull`, {
          headers: {
            authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
          },
        })
      ).status;

    before(async () => {
      r = await startRegistryServer(pair);
      await skopeo(
        "copy",
        `oci:${writeLayout("v", [buildImage("pull me")])}:v`,
        `docker://${r.host}/acme/app:latest`,
        "--dest-creds",
        `_token:${r.ownerToken}`,
        "--dest-tls-verify=false",
      );
    });
    after(() => r?.close());

    const pullIdentity = () => createPullToken(r, registryPull);

    it("pulls with skopeo, cannot push, and stops working once the identity is deleted", async () => {
      const { uid, bindingUid, jwt } = await pullIdentity();
      const creds = ["--creds", `${uid}:${jwt}`, "--tls-verify=false"];
      const inspected = JSON.parse(
        await skopeo("inspect", ...creds, `docker://${r.host}/acme/app:latest`),
      );
      assert.equal(inspected.Architecture, "amd64");
      const out = await mkdtemp(join(tmpdir(), "lading-pull-"));
      await skopeo(
        "copy",
        "--src-creds",
        `${uid}:${jwt}`,
        "--src-tls-verify=false",
        `docker://${r.host}/acme/app:latest`,
        `oci:${out}:pulled`,
      );
      await rm(out, { recursive: true, force: true });
      await assert.rejects(
        skopeo(
          "copy",
          `oci:${writeLayout("p", [buildImage("push attempt")])}:p`,
          `docker://${r.host}/acme/app:pushed`,
          "--dest-creds",
          `${uid}:${jwt}`,
          "--dest-tls-verify=false",
        ),
        /denied|unauthorized|authentication required/i,
      );

      assert.equal((await api("DELETE", `/iam/v2/roleBindings/${bindingUid}`)).status, 200);
      assert.equal((await api("DELETE", `/iam/v2/identities/${uid}`)).status, 200);
      assert.equal(await tokenStatus(uid, jwt), 401);
      await assert.rejects(skopeo("inspect", ...creds, `docker://${r.host}/acme/app:latest`));
    });

    it("refuses a pull token of another key or subject, and one of an expired identity", async () => {
      const { uid, jwt, privateKey } = await pullIdentity();
      assert.equal(await tokenStatus(uid, jwt), 200);
      const other = await generateKeyPair("ES256");
      const forged = await new SignJWT({})
        .setProtectedHeader({ alg: "ES256", kid: "pull" })
        .setIssuer(issuer)
        .setSubject("puller")
        .setAudience(r.host)
        .setExpirationTime("1h")
        .sign(other.privateKey);
      assert.equal(await tokenStatus(uid, forged), 401);
      const otherSubject = await new SignJWT({})
        .setProtectedHeader({ alg: "ES256", kid: "pull" })
        .setIssuer(issuer)
        .setSubject("someone")
        .setAudience(r.host)
        .setExpirationTime("1h")
        .sign(privateKey);
      assert.equal(await tokenStatus(uid, otherSubject), 401);
      assert.equal(await tokenStatus(r.server.org.identityUid, jwt), 401);
      await r.server.lading.store.db
        .updateTable("identities")
        .set({ expire_time: new Date(Date.now() - 1000).toISOString() })
        .where("uid", "=", uid)
        .execute();
      assert.equal(await tokenStatus(uid, jwt), 401);
    });
  });
}
