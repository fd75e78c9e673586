import { createClient } from "@connectrpc/connect";
import { useQuery, useTransport } from "@connectrpc/connect-query";
import { IdentitiesService, type Identity } from "@gen/lading/iam/v2/identities_pb.js";
import { useState } from "react";
import type { Org } from "../api/orgs.ts";
import { useAction } from "../api/use-action.ts";
import { EditDetails } from "../components/edit-details.tsx";
import { Field } from "../components/field.tsx";
import { FormError } from "../components/form-error.tsx";
import { formatTime } from "../components/format.ts";
import { Pager, usePage } from "../components/pager.tsx";
import { Empty, ErrorBox, Loading } from "../components/status.tsx";

const pageSize = 50;

/** What kind of identity a row is, in words. */
function kindOf(i: Identity): string {
  if (i.claimMatch && (i.claimMatch.issuer || i.claimMatch.issuerPattern))
    return "workload (claim match)";
  if (i.staticKeys?.issuer) return "workload (static keys)";
  if (i.email) return `user ${i.email}`;
  return "identity";
}

/** Identities of the organisation: list, create (a workload that matches an OIDC issuer), rename, delete. */
export function Identities({ org }: { org: Org }) {
  const transport = useTransport();
  const client = createClient(IdentitiesService, transport);
  const page = usePage();
  const list = useQuery(IdentitiesService.method.listIdentities, {
    uidp: { descendantsOf: org.uid },
    orderBy: "name",
    pageSize,
    skip: (page - 1) * pageSize,
  });
  const action = useAction();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [issuer, setIssuer] = useState("");
  const [subject, setSubject] = useState("");
  const fields = action.error?.fields ?? {};
  return (
    <>
      <h2>Identities</h2>
      {list.isPending ? (
        <Loading what="Loading identities" />
      ) : list.error ? (
        <ErrorBox error={list.error} />
      ) : list.data.identities.length === 0 ? (
        <Empty>No identities yet.</Empty>
      ) : (
        <>
          <table className="list">
            <caption className="sr-only">Identities</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col">Last seen</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.identities.map((i) => (
                <tr key={i.uid}>
                  <th scope="row">
                    {i.name}
                    {i.description ? <div>{i.description}</div> : null}
                    <div className="muted mono">{i.uid}</div>
                  </th>
                  <td>{kindOf(i)}</td>
                  <td>{formatTime(i.lastSeenTime)}</td>
                  <td>
                    <EditDetails
                      what="identity"
                      name={i.name}
                      description={i.description}
                      save={(name, description) =>
                        client.updateIdentity({
                          identity: { uid: i.uid, name, description },
                          updateMask: { paths: ["name", "description"] },
                        })
                      }
                    />{" "}
                    <button
                      type="button"
                      className="danger"
                      aria-label={`Delete identity ${i.name}`}
                      onClick={() => {
                        if (confirm(`Delete identity ${i.name}? Its role bindings go with it.`)) {
                          void action.run(() => client.deleteIdentity({ uid: i.uid }));
                        }
                      }}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager total={Number(list.data.totalCount)} size={pageSize} label="identities" />
        </>
      )}
      <form
        className="card"
        aria-labelledby="new-identity"
        onSubmit={async (e) => {
          e.preventDefault();
          const created = await action.run(() =>
            client.createIdentity({
              parent: org.uid,
              identity: {
                name,
                description,
                ...(issuer || subject ? { claimMatch: { issuer, subject } } : {}),
              },
            }),
          );
          if (created) {
            setName("");
            setDescription("");
            setIssuer("");
            setSubject("");
          }
        }}
      >
        <h3 id="new-identity">New identity</h3>
        <Field
          label="Name"
          value={name}
          onChange={setName}
          error={fields.name ?? fields["identity.name"]}
          required
        />
        <Field
          label="Description"
          value={description}
          onChange={setDescription}
          error={fields.description ?? fields["identity.description"]}
        />
        <Field
          label="Issuer"
          value={issuer}
          onChange={setIssuer}
          placeholder="https://token.actions.githubusercontent.com"
          hint="A workload identity: tokens of this issuer and subject are exchanged for Lading tokens."
          error={fields["claim_match.issuer"] ?? fields["identity.claim_match.issuer"]}
        />
        <Field
          label="Subject"
          value={subject}
          onChange={setSubject}
          error={fields["claim_match.subject"] ?? fields["identity.claim_match.subject"]}
        />
        <FormError
          error={action.error}
          shown={[
            "name",
            "identity.name",
            "description",
            "identity.description",
            "claim_match.issuer",
            "identity.claim_match.issuer",
            "claim_match.subject",
            "identity.claim_match.subject",
          ]}
        />
        <button type="submit" className="primary" disabled={action.busy}>
          Create identity
        </button>
      </form>
    </>
  );
}
