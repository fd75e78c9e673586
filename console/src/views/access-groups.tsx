import { createClient } from "@connectrpc/connect";
import { useQuery, useTransport } from "@connectrpc/connect-query";
import { GroupsService } from "@gen/lading/iam/v2/groups_pb.js";
import { useState } from "react";
import type { Org } from "../api/orgs.ts";
import { useAction } from "../api/use-action.ts";
import { EditDetails } from "../components/edit-details.tsx";
import { Field } from "../components/field.tsx";
import { FormError } from "../components/form-error.tsx";
import { Empty, ErrorBox, Loading } from "../components/status.tsx";

/** The organisation's groups: list, create under the organisation, delete. */
export function Groups({ org }: { org: Org }) {
  const client = createClient(GroupsService, useTransport());
  const list = useQuery(GroupsService.method.listGroups, {
    uidp: { descendantsOf: org.uid },
    pageSize: 200,
    orderBy: "name",
  });
  const action = useAction();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const fields = action.error?.fields ?? {};
  return (
    <>
      <h2>Groups</h2>
      {list.isPending ? (
        <Loading what="Loading groups" />
      ) : list.error ? (
        <ErrorBox error={list.error} />
      ) : list.data.groups.length === 0 ? (
        <Empty>No groups under {org.name} yet.</Empty>
      ) : (
        <table className="list">
          <caption className="sr-only">Groups</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Description</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.data.groups.map((g) => (
              <tr key={g.uid}>
                <th scope="row">{g.name}</th>
                <td>{g.description}</td>
                <td>
                  <EditDetails
                    what="group"
                    name={g.name}
                    description={g.description}
                    save={(name, description) =>
                      client.updateGroup({
                        group: { uid: g.uid, name, description },
                        updateMask: { paths: ["name", "description"] },
                      })
                    }
                  />{" "}
                  <button
                    type="button"
                    className="danger"
                    aria-label={`Delete group ${g.name}`}
                    onClick={() => {
                      if (confirm(`Delete group ${g.name}?`))
                        void action.run(() => client.deleteGroup({ uid: g.uid }));
                    }}
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
        aria-labelledby="new-group"
        onSubmit={async (e) => {
          e.preventDefault();
          if (
            await action.run(() =>
              client.createGroup({ parent: org.uid, group: { name, description } }),
            )
          ) {
            setName("");
            setDescription("");
          }
        }}
      >
        <h3 id="new-group">New group in {org.name}</h3>
        <Field label="Name" value={name} onChange={setName} error={fields.name} required />
        <Field
          label="Description"
          value={description}
          onChange={setDescription}
          error={fields.description}
        />
        <FormError error={action.error} shown={["name", "description"]} />
        <button type="submit" className="primary" disabled={action.busy}>
          Create group
        </button>
      </form>
    </>
  );
}
