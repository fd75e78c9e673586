import { createClient } from "@connectrpc/connect";
import { useQuery, useTransport } from "@connectrpc/connect-query";
import { GroupsService } from "@gen/lading/iam/v2/groups_pb.js";
import { IdentitiesService } from "@gen/lading/iam/v2/identities_pb.js";
import { RoleBindingsService } from "@gen/lading/iam/v2/role_bindings_pb.js";
import { RolesService } from "@gen/lading/iam/v2/roles_pb.js";
import { useState } from "react";
import type { Org } from "../api/orgs.ts";
import { useAction } from "../api/use-action.ts";
import { Select } from "../components/field.tsx";
import { FormError } from "../components/form-error.tsx";
import { Pager, usePage } from "../components/pager.tsx";
import { Empty, ErrorBox, Loading } from "../components/status.tsx";

const pageSize = 50;

/** Role bindings in the organisation: who holds which role where; bind and unbind. */
export function Bindings({ org }: { org: Org }) {
  const transport = useTransport();
  const client = createClient(RoleBindingsService, transport);
  const page = usePage();
  const list = useQuery(RoleBindingsService.method.listRoleBindings, {
    uidp: { descendantsOf: org.uid },
    pageSize,
    skip: (page - 1) * pageSize,
  });
  const identities = useQuery(IdentitiesService.method.listIdentities, {
    uidp: { descendantsOf: org.uid },
    pageSize: 200,
    orderBy: "name",
  });
  const roles = useQuery(RolesService.method.listRoles, { pageSize: 200, orderBy: "name" });
  const groups = useQuery(GroupsService.method.listGroups, {
    uidp: { descendantsOf: org.uid },
    pageSize: 200,
    orderBy: "name",
  });
  const action = useAction();
  const [identity, setIdentity] = useState("");
  const [role, setRole] = useState("");
  const [group, setGroup] = useState("");
  const fields = action.error?.fields ?? {};
  const groupOptions = [
    { value: "", label: `${org.name} (the organisation)` },
    ...(groups.data?.groups ?? []).map((g) => ({ value: g.uid, label: g.name })),
  ];
  return (
    <>
      <h2>Role bindings</h2>
      {list.isPending ? (
        <Loading what="Loading role bindings" />
      ) : list.error ? (
        <ErrorBox error={list.error} />
      ) : list.data.roleBindings.length === 0 ? (
        <Empty>No role bindings yet.</Empty>
      ) : (
        <>
          <table className="list">
            <caption className="sr-only">Role bindings</caption>
            <thead>
              <tr>
                <th scope="col">Identity</th>
                <th scope="col">Role</th>
                <th scope="col">Group</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.roleBindings.map((b) => (
                <tr key={b.uid}>
                  <th scope="row">{b.identity?.name || b.identity?.subject || b.identityUid}</th>
                  <td>
                    <select
                      aria-label={`Role of ${b.identity?.name || b.identity?.subject} in ${b.group?.name}`}
                      value={b.role?.uid ?? ""}
                      disabled={action.busy}
                      onChange={(e) => {
                        const roleUid = e.target.value;
                        void action.run(() =>
                          client.updateRoleBinding({
                            roleBinding: { uid: b.uid, roleUid },
                            updateMask: { paths: ["role_uid"] },
                          }),
                        );
                      }}
                    >
                      {(roles.data?.roles ?? []).map((r) => (
                        <option key={r.uid} value={r.uid}>
                          {r.name}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td>{b.group?.name}</td>
                  <td>
                    <button
                      type="button"
                      className="danger"
                      aria-label={`Remove ${b.role?.name} from ${b.identity?.name}`}
                      onClick={() =>
                        void action.run(() => client.deleteRoleBinding({ uid: b.uid }))
                      }
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager total={Number(list.data.totalCount)} size={pageSize} label="role bindings" />
        </>
      )}
      <form
        className="card"
        aria-labelledby="new-binding"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(() =>
            client.createRoleBinding({
              parent: group || org.uid,
              roleBinding: { identityUid: identity, roleUid: role },
            }),
          );
        }}
      >
        <h3 id="new-binding">Bind a role</h3>
        <Select
          label="Identity"
          value={identity}
          onChange={setIdentity}
          error={fields.identityUid ?? fields.identity_uid}
          options={[
            { value: "", label: "choose an identity" },
            ...(identities.data?.identities ?? []).map((i) => ({ value: i.uid, label: i.name })),
          ]}
        />
        <Select
          label="Role"
          value={role}
          onChange={setRole}
          error={fields.roleUid ?? fields.role_uid}
          options={[
            { value: "", label: "choose a role" },
            ...(roles.data?.roles ?? []).map((r) => ({ value: r.uid, label: r.name })),
          ]}
        />
        <Select
          label="Where"
          value={group}
          onChange={setGroup}
          error={fields.parent}
          options={groupOptions}
        />
        <FormError
          error={action.error}
          shown={["identityUid", "identity_uid", "roleUid", "role_uid", "parent"]}
        />
        <button type="submit" className="primary" disabled={action.busy}>
          Bind
        </button>
      </form>
    </>
  );
}
