import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { openTestStore, storeKinds } from "../../test/support/stores.ts";
import type { Principal } from "../auth/index.ts";
import {
  CreateGroupRequestSchema,
  DeleteGroupRequestSchema,
  GroupsService,
} from "../gen/lading/iam/v2/groups_pb.js";
import { type BoundService, bindService, type Call } from "../rpc/index.ts";
import type { MetadataStore } from "../store/metadata/index.ts";
import { newChildUid, newRootUid } from "../uidp/index.ts";
import { eventRuleOf, eventRulesOf } from "./event-rules.ts";
import { withOutbox } from "./outbox-services.ts";

const principal: Principal = {
  identityUid: "caller",
  claims: { iss: "https://api.example", sub: "caller", aud: "https://api.example" },
  grants: () => Promise.reject(new Error("unused")),
};
const call: Call = { principal, requestId: "r", signal: new AbortController().signal };

describe("event rules", () => {
  const method = (name: string) => GroupsService.methods.find((m) => m.name === name);
  it("derives type, collection and body from the method and its HTTP binding", () => {
    assert.equal(eventRuleOf(GroupsService, method("GetGroup") ?? assert.fail()), undefined);
    assert.deepEqual(eventRuleOf(GroupsService, method("CreateGroup") ?? assert.fail()), {
      type: "dev.lading.iam.group.created.v1",
      collection: "/iam/v2/groups",
      from: "response",
      resource: "group",
    });
    assert.equal(
      eventRuleOf(GroupsService, method("DeleteGroup") ?? assert.fail())?.from,
      "request",
    );
  });
  it("lists every mutating method but those skipped", () => {
    assert.deepEqual(
      [...eventRulesOf(GroupsService).keys()],
      ["createGroup", "updateGroup", "deleteGroup"],
    );
    const skip = new Set(["lading.iam.v2.GroupsService/DeleteGroup"]);
    assert.deepEqual([...eventRulesOf(GroupsService, skip).keys()], ["createGroup", "updateGroup"]);
  });
});

for (const kind of storeKinds) {
  describe(`withOutbox [${kind}]`, () => {
    let opened: Awaited<ReturnType<typeof openTestStore>>;
    let store: MetadataStore;
    const org = newRootUid();
    before(async () => {
      opened = await openTestStore(kind);
      store = opened.store;
      await insertGroup(org, "");
    });
    after(() => opened.close());

    async function insertGroup(uid: string, parent: string) {
      const time = new Date().toISOString();
      await store.db
        .insertInto("groups")
        .values({
          uid,
          parent_uid: parent,
          name: uid.slice(-6),
          description: "",
          create_time: time,
          update_time: time,
        })
        .execute();
    }
    /** GroupsService whose create writes a group and then, if told to, fails. */
    function service(fail: () => boolean): BoundService {
      const unused = () => Promise.reject(new Error("unused"));
      const bound = bindService(GroupsService, {
        listGroups: unused,
        getGroup: unused,
        updateGroup: unused,
        async deleteGroup(req) {
          await store.db.deleteFrom("groups").where("uid", "=", req.uid).execute();
          return {};
        },
        async createGroup(req) {
          const uid = newChildUid(req.parent);
          // A nested transaction, as services write: it must join the outbox's.
          await store.db.transaction().execute(async (trx) => {
            const time = new Date().toISOString();
            await trx
              .insertInto("groups")
              .values({
                uid,
                parent_uid: req.parent,
                name: req.group?.name ?? "",
                description: "",
                create_time: time,
                update_time: time,
              })
              .execute();
          });
          if (fail()) throw new Error("failed after writing");
          return { uid, name: req.group?.name ?? "" };
        },
      });
      const [wrapped] = withOutbox([bound], { db: store.db, apiUrl: () => "https://api.example" });
      return wrapped;
    }
    const handlers = (bound: BoundService) =>
      bound.handlers as unknown as Record<string, (req: unknown, call: Call) => Promise<unknown>>;
    const events = () => store.db.selectFrom("events").selectAll().orderBy("seq").execute();
    const groupNamed = (name: string) =>
      store.db.selectFrom("groups").select("uid").where("name", "=", name).executeTakeFirst();

    it("commits the change and its event together", async () => {
      const { createGroup, deleteGroup } = handlers(service(() => false));
      const made = (await createGroup(
        create(CreateGroupRequestSchema, { parent: org, group: { name: "kept" } }),
        call,
      )) as { uid: string };
      const [event] = await events();
      assert.equal(event.type, "dev.lading.iam.group.created.v1");
      assert.equal(event.subject, made.uid);
      assert.equal(event.group_uid, org);
      assert.equal(event.source, "https://api.example/iam/v2/groups");
      assert.equal(event.body_type, "lading.iam.v2.Group");
      assert.deepEqual(JSON.parse(event.data), {
        actor: {
          subject: "caller",
          act: { iss: "https://api.example", sub: "caller", aud: "https://api.example" },
        },
        body: { uid: made.uid, name: "kept", description: "", createTime: "", updateTime: "" },
      });
      await deleteGroup(create(DeleteGroupRequestSchema, { uid: made.uid }), call);
      const deleted = (await events())[1];
      assert.equal(deleted.type, "dev.lading.iam.group.deleted.v1");
      assert.equal(deleted.group_uid, org);
      assert.deepEqual(JSON.parse(deleted.data).body, { uid: made.uid });
    });

    it("rolls the change and its event back when the handler fails after writing", async () => {
      const before = (await events()).length;
      const { createGroup } = handlers(service(() => true));
      await assert.rejects(
        createGroup(
          create(CreateGroupRequestSchema, { parent: org, group: { name: "gone" } }),
          call,
        ),
        /failed after writing/,
      );
      assert.equal(await groupNamed("gone"), undefined);
      assert.equal((await events()).length, before);
    });

    it("reports a root group to itself", async () => {
      const { createGroup } = handlers(service(() => false));
      const made = (await createGroup(
        create(CreateGroupRequestSchema, { parent: "", group: { name: "root" } }),
        call,
      )) as { uid: string };
      const last = (await events()).at(-1);
      assert.equal(last?.subject, made.uid);
      assert.equal(last?.group_uid, made.uid);
    });
  });
}
