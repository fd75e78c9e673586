import { createClient } from "@connectrpc/connect";
import { useQuery, useTransport } from "@connectrpc/connect-query";
import { IdentityProvidersService } from "@gen/lading/iam/v2/identity_providers_pb.js";
import { RolesService } from "@gen/lading/iam/v2/roles_pb.js";
import { useState } from "react";
import type { Org } from "../api/orgs.ts";
import { useAction } from "../api/use-action.ts";
import { EditDetails } from "../components/edit-details.tsx";
import { Field, Select } from "../components/field.tsx";
import { FormError } from "../components/form-error.tsx";
import { Empty, ErrorBox, Loading } from "../components/status.tsx";

/** Identity providers people sign in through: list (with the sign-in link to share), create, delete. */
export function Providers({ org }: { org: Org }) {
  const client = createClient(IdentityProvidersService, useTransport());
  const list = useQuery(IdentityProvidersService.method.listIdentityProviders, {
    uidp: { descendantsOf: org.uid },
    pageSize: 200,
  });
  const roles = useQuery(RolesService.method.listRoles, { pageSize: 200, orderBy: "name" });
  const action = useAction();
  const [name, setName] = useState("");
  const [issuer, setIssuer] = useState("");
  const [clientId, setClientId] = useState("");
  const [role, setRole] = useState("");
  const fields = action.error?.fields ?? {};
  return (
    <>
      <h2>Identity providers</h2>
      {list.isPending ? (
        <Loading what="Loading identity providers" />
      ) : list.error ? (
        <ErrorBox error={list.error} />
      ) : list.data.identityProviders.length === 0 ? (
        <Empty>No identity provider: people of {org.name} sign in with tokens only.</Empty>
      ) : (
        <table className="list">
          <caption className="sr-only">Identity providers</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Issuer</th>
              <th scope="col">Sign-in link</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.data.identityProviders.map((p) => (
              <tr key={p.uid}>
                <th scope="row">{p.name}</th>
                <td className="mono">{p.oidc?.issuer}</td>
                <td className="mono break">{`${location.origin}/sign-in?identity_provider=${p.uid}`}</td>
                <td>
                  <EditDetails
                    what="identity provider"
                    name={p.name}
                    description={p.description}
                    save={(name, description) =>
                      client.updateIdentityProvider({
                        identityProvider: { uid: p.uid, name, description },
                        updateMask: { paths: ["name", "description"] },
                      })
                    }
                  />{" "}
                  <button
                    type="button"
                    className="danger"
                    aria-label={`Delete identity provider ${p.name}`}
                    onClick={() => {
                      if (confirm(`Delete identity provider ${p.name}?`))
                        void action.run(() => client.deleteIdentityProvider({ uid: p.uid }));
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
        aria-labelledby="new-idp"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(() =>
            client.createIdentityProvider({
              parent: org.uid,
              identityProvider: {
                name,
                defaultRole: role,
                oidc: { issuer, clientId, pkceEnabled: true },
              },
            }),
          );
        }}
      >
        <h3 id="new-idp">New identity provider (OpenID Connect, PKCE)</h3>
        <Field label="Name" value={name} onChange={setName} error={fields.name} required />
        <Field
          label="Issuer"
          value={issuer}
          onChange={setIssuer}
          error={fields["oidc.issuer"]}
          required
        />
        <Field
          label="Client id"
          value={clientId}
          onChange={setClientId}
          error={fields["oidc.client_id"]}
          required
        />
        <Select
          label="Default role"
          value={role}
          onChange={setRole}
          error={fields.default_role}
          options={[
            { value: "", label: "choose a role" },
            ...(roles.data?.roles ?? []).map((r) => ({ value: r.uid, label: r.name })),
          ]}
        />
        <FormError
          error={action.error}
          shown={["name", "oidc.issuer", "oidc.client_id", "default_role"]}
        />
        <button type="submit" className="primary" disabled={action.busy}>
          Create identity provider
        </button>
      </form>
    </>
  );
}
