import { capabilities, capabilityFromEnum, capabilityToEnum } from "@capabilities";
import { createClient } from "@connectrpc/connect";
import { useQuery, useTransport } from "@connectrpc/connect-query";
import type { Capability } from "@gen/lading/iam/v2/capabilities_pb.js";
import { RolesService } from "@gen/lading/iam/v2/roles_pb.js";
import { useState } from "react";
import type { Org } from "../api/orgs.ts";
import { useAction } from "../api/use-action.ts";
import { EditDetails } from "../components/edit-details.tsx";
import { Field } from "../components/field.tsx";
import { FormError } from "../components/form-error.tsx";
import { Empty, ErrorBox, Loading } from "../components/status.tsx";

/**
 * Roles the organisation can bind: the built-in ones and its own, each with its capabilities;
 * a custom role is created from chosen capabilities (the API refuses those the caller may not
 * grant) and deleted.
 */
export function Roles({ org }: { org: Org }) {
  const client = createClient(RolesService, useTransport());
  const list = useQuery(RolesService.method.listRoles, { pageSize: 200, orderBy: "name" });
  const action = useAction();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const fields = action.error?.fields ?? {};
  const roles = (list.data?.roles ?? []).filter(
    (r) => !r.uid.includes("/") || r.uid.startsWith(`${org.uid}/`),
  );
  return (
    <>
      <h2>Roles</h2>
      {list.isPending ? (
        <Loading what="Loading roles" />
      ) : list.error ? (
        <ErrorBox error={list.error} />
      ) : roles.length === 0 ? (
        <Empty>No roles.</Empty>
      ) : (
        roles.map((r) => (
          <details key={r.uid} className="card">
            <summary>
              <strong>{r.name}</strong> <span className="muted">{r.description}</span>{" "}
              <span className="badge">{r.uid.includes("/") ? "custom" : "built-in"}</span>{" "}
              <span className="muted">{r.capabilities.length} capabilities</span>
            </summary>
            <ul className="plain columns-list">
              {r.capabilities.map((c) => (
                <li key={c} className="mono">
                  {capabilityFromEnum(c) ?? c}
                </li>
              ))}
            </ul>
            {r.uid.includes("/") ? (
              <EditDetails
                what="role"
                name={r.name}
                description={r.description}
                save={(name, description) =>
                  client.updateRole({
                    role: { uid: r.uid, name, description },
                    updateMask: { paths: ["name", "description"] },
                  })
                }
              />
            ) : null}{" "}
            {r.uid.includes("/") ? (
              <button
                type="button"
                className="danger"
                onClick={() => {
                  if (confirm(`Delete role ${r.name}?`))
                    void action.run(() => client.deleteRole({ uid: r.uid }));
                }}
              >
                Delete role {r.name}
              </button>
            ) : null}
          </details>
        ))
      )}
      <form
        className="card"
        aria-labelledby="new-role"
        onSubmit={async (e) => {
          e.preventDefault();
          const caps = [...chosen].map((c) => capabilityToEnum(c) as Capability);
          if (
            await action.run(() =>
              client.createRole({
                parent: org.uid,
                role: { name, description, capabilities: caps },
              }),
            )
          ) {
            setName("");
            setDescription("");
            setChosen(new Set());
          }
        }}
      >
        <h3 id="new-role">New role in {org.name}</h3>
        <Field label="Name" value={name} onChange={setName} error={fields.name} required />
        <Field
          label="Description"
          value={description}
          onChange={setDescription}
          error={fields.description}
        />
        <fieldset
          className="capabilities"
          aria-describedby={fields.capabilities ? "role-caps-error" : undefined}
        >
          <legend>Capabilities</legend>
          {capabilities.map((c) => (
            <label key={c}>
              <input
                type="checkbox"
                checked={chosen.has(c)}
                onChange={(e) => {
                  const next = new Set(chosen);
                  if (e.target.checked) next.add(c);
                  else next.delete(c);
                  setChosen(next);
                }}
              />{" "}
              <span className="mono">{c}</span>
            </label>
          ))}
        </fieldset>
        {fields.capabilities ? (
          <span id="role-caps-error" className="field-error">
            {fields.capabilities}
          </span>
        ) : null}
        <FormError error={action.error} shown={["name", "description", "capabilities"]} />
        <button type="submit" className="primary" disabled={action.busy}>
          Create role
        </button>
      </form>
    </>
  );
}
