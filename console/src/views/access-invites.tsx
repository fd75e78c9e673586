import { createClient } from "@connectrpc/connect";
import { useQuery, useTransport } from "@connectrpc/connect-query";
import { GroupInvitesService } from "@gen/lading/iam/v2/group_invites_pb.js";
import { RolesService } from "@gen/lading/iam/v2/roles_pb.js";
import { useState } from "react";
import type { Org } from "../api/orgs.ts";
import { useAction } from "../api/use-action.ts";
import { Field, Select } from "../components/field.tsx";
import { FormError } from "../components/form-error.tsx";
import { formatTime } from "../components/format.ts";
import { Empty, ErrorBox, Loading } from "../components/status.tsx";

/** Invites into the organisation: list, create (the code is shown once), delete. */
export function Invites({ org }: { org: Org }) {
  const client = createClient(GroupInvitesService, useTransport());
  const list = useQuery(GroupInvitesService.method.listGroupInvites, {
    uidp: { descendantsOf: org.uid },
    pageSize: 200,
  });
  const roles = useQuery(RolesService.method.listRoles, { pageSize: 200, orderBy: "name" });
  const action = useAction();
  const [role, setRole] = useState("");
  const [email, setEmail] = useState("");
  const [code, setCode] = useState("");
  const fields = action.error?.fields ?? {};
  return (
    <>
      <h2>Invites</h2>
      {list.isPending ? (
        <Loading what="Loading invites" />
      ) : list.error ? (
        <ErrorBox error={list.error} />
      ) : list.data.groupInvites.length === 0 ? (
        <Empty>No open invites.</Empty>
      ) : (
        <table className="list">
          <caption className="sr-only">Invites</caption>
          <thead>
            <tr>
              <th scope="col">Role</th>
              <th scope="col">Email</th>
              <th scope="col">Expires</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.data.groupInvites.map((i) => (
              <tr key={i.uid}>
                <th scope="row">{i.role?.name ?? i.roleUid}</th>
                <td>{i.email || "anyone with the code"}</td>
                <td>{formatTime(i.expirationTime)}</td>
                <td>
                  <button
                    type="button"
                    className="danger"
                    aria-label={`Delete invite for ${i.role?.name}`}
                    onClick={() => void action.run(() => client.deleteGroupInvite({ uid: i.uid }))}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form
        className="card"
        aria-labelledby="new-invite"
        onSubmit={async (e) => {
          e.preventDefault();
          const created = await action.run(() =>
            client.createGroupInvite({ parent: org.uid, groupInvite: { roleUid: role, email } }),
          );
          if (created) setCode(created.code);
        }}
      >
        <h3 id="new-invite">Invite someone</h3>
        <Select
          label="Role"
          value={role}
          onChange={setRole}
          error={fields.role_uid ?? fields.roleUid}
          options={[
            { value: "", label: "choose a role" },
            ...(roles.data?.roles ?? []).map((r) => ({ value: r.uid, label: r.name })),
          ]}
        />
        <Field label="Email (optional)" value={email} onChange={setEmail} error={fields.email} />
        <FormError error={action.error} shown={["role_uid", "roleUid", "email"]} />
        <button type="submit" className="primary" disabled={action.busy}>
          Create invite
        </button>
        {code ? (
          <p role="status">
            Give this code to the person invited (it is shown once):{" "}
            <span className="mono break">{code}</span>
          </p>
        ) : null}
      </form>
    </>
  );
}
