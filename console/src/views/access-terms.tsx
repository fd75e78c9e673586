import { createClient } from "@connectrpc/connect";
import { useQuery, useTransport } from "@connectrpc/connect-query";
import { TermsService } from "@gen/lading/iam/v2/terms_pb.js";
import { useState } from "react";
import type { Org } from "../api/orgs.ts";
import { useAction } from "../api/use-action.ts";
import { Field } from "../components/field.tsx";
import { FormError } from "../components/form-error.tsx";
import { formatTime } from "../components/format.ts";
import { Empty, ErrorBox, Loading } from "../components/status.tsx";

/** Terms documents accepted for the organisation, and accepting one. */
export function Terms({ org }: { org: Org }) {
  const client = createClient(TermsService, useTransport());
  const list = useQuery(TermsService.method.listTermsAcceptances, {
    group: org.uid,
    pageSize: 200,
  });
  const action = useAction();
  const [doc, setDoc] = useState("");
  return (
    <>
      <h2>Terms</h2>
      {list.isPending ? (
        <Loading what="Loading terms" />
      ) : list.error ? (
        <ErrorBox error={list.error} />
      ) : list.data.termsAcceptances.length === 0 ? (
        <Empty>No terms document has been accepted for {org.name}.</Empty>
      ) : (
        <table className="list">
          <caption className="sr-only">Accepted terms</caption>
          <thead>
            <tr>
              <th scope="col">Document</th>
              <th scope="col">Accepted by</th>
              <th scope="col">When</th>
            </tr>
          </thead>
          <tbody>
            {list.data.termsAcceptances.map((t) => (
              <tr key={`${t.docId}-${t.groupUid}`}>
                <th scope="row">{t.docId}</th>
                <td className="mono">{t.acceptedBy}</td>
                <td>{formatTime(t.createTime)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form
        className="card"
        aria-labelledby="accept-terms"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(() => client.acceptTerms({ group: org.uid, documentIds: [doc] }));
        }}
      >
        <h3 id="accept-terms">Accept a terms document</h3>
        <Field
          label="Document id"
          value={doc}
          onChange={setDoc}
          error={action.error?.fields.document_ids}
          required
        />
        <FormError error={action.error} shown={["document_ids"]} />
        <button type="submit" className="primary" disabled={action.busy}>
          Accept
        </button>
      </form>
    </>
  );
}
