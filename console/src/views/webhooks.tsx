import { createClient } from "@connectrpc/connect";
import { useQuery, useTransport } from "@connectrpc/connect-query";
import { SubscriptionsService } from "@gen/lading/events/v2/subscriptions_pb.js";
import { useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import type { Org } from "../api/orgs.ts";
import { useAction } from "../api/use-action.ts";
import { Field, Select } from "../components/field.tsx";
import { FormError } from "../components/form-error.tsx";
import { formatTime } from "../components/format.ts";
import { Pager, usePage } from "../components/pager.tsx";
import { Empty, ErrorBox, Loading } from "../components/status.tsx";

const pageSize = 50;

/** Webhooks: the organisation's subscriptions, or one subscription's delivery log (`…/webhooks/<uid>`). */
export function Webhooks({ org }: { org: Org }) {
  const { "*": uid = "" } = useParams();
  return uid ? <Subscription org={org} uid={uid} /> : <Subscriptions org={org} />;
}

function Subscriptions({ org }: { org: Org }) {
  const client = createClient(SubscriptionsService, useTransport());
  const page = usePage();
  const list = useQuery(SubscriptionsService.method.listSubscriptions, {
    uidp: { descendantsOf: org.uid },
    pageSize,
    skip: (page - 1) * pageSize,
  });
  const action = useAction();
  const [sink, setSink] = useState("");
  const [prefix, setPrefix] = useState("");
  const fields = action.error?.fields ?? {};
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks of {org.name}</h1>
      {list.isPending ? (
        <Loading what="Loading subscriptions" />
      ) : list.error ? (
        <ErrorBox error={list.error} />
      ) : list.data.subscriptions.length === 0 ? (
        <Empty>No webhook yet: add a sink below to receive {org.name}'s events.</Empty>
      ) : (
        <>
          <table className="list">
            <caption className="sr-only">Subscriptions</caption>
            <thead>
              <tr>
                <th scope="col">Sink</th>
                <th scope="col">Event types</th>
                <th scope="col">Created</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.subscriptions.map((s) => (
                <tr key={s.uid}>
                  <th scope="row">
                    <Link to={`/orgs/${org.name}/webhooks/${s.uid}`} className="mono break">
                      {s.sink}
                    </Link>
                  </th>
                  <td className="mono">{s.typePrefix || "all"}</td>
                  <td>{formatTime(s.createTime)}</td>
                  <td>
                    <button
                      type="button"
                      className="danger"
                      aria-label={`Delete webhook ${s.sink}`}
                      onClick={() => {
                        if (confirm(`Delete the webhook to ${s.sink}?`))
                          void action.run(() => client.deleteSubscription({ uid: s.uid }));
                      }}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager total={Number(list.data.totalCount)} size={pageSize} label="subscriptions" />
        </>
      )}
      <form
        className="card"
        aria-labelledby="new-webhook"
        onSubmit={async (e) => {
          e.preventDefault();
          if (
            await action.run(() =>
              client.createSubscription({
                parent: org.uid,
                subscription: { sink, typePrefix: prefix },
              }),
            )
          ) {
            setSink("");
            setPrefix("");
          }
        }}
      >
        <h2 id="new-webhook">New webhook</h2>
        <Field
          label="Sink URL"
          value={sink}
          onChange={setSink}
          error={fields.sink}
          placeholder="https://hooks.example.com/lading"
          required
        />
        <Field
          label="Event type prefix"
          value={prefix}
          onChange={setPrefix}
          error={fields.type_prefix}
          hint="Only events whose type starts with this, e.g. dev.lading.registry. Empty: every event."
        />
        <FormError error={action.error} shown={["sink", "type_prefix"]} />
        <button type="submit" className="primary" disabled={action.busy}>
          Create webhook
        </button>
      </form>
    </section>
  );
}

const states = ["", "pending", "delivered", "failed"];

function Subscription({ org, uid }: { org: Org; uid: string }) {
  const client = createClient(SubscriptionsService, useTransport());
  const [params, setParams] = useSearchParams();
  const state = params.get("state") ?? "";
  const sub = useQuery(SubscriptionsService.method.getSubscription, { uid });
  const deliveries = useQuery(
    SubscriptionsService.method.listDeliveries,
    { uid, state, pageSize: 100 },
    { refetchInterval: 5000 },
  );
  const action = useAction();
  const [notice, setNotice] = useState("");
  return (
    <section aria-labelledby="webhook-title">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link to={`/orgs/${org.name}/webhooks`}>Webhooks</Link> / delivery log
      </nav>
      <h1 id="webhook-title">
        Webhook {sub.data ? <span className="mono break">{sub.data.sink}</span> : null}
      </h1>
      {sub.error ? <ErrorBox error={sub.error} /> : null}
      <div className="toolbar">
        <button
          type="button"
          disabled={action.busy}
          onClick={async () => {
            setNotice("");
            const sent = await action.run(() => client.testSubscription({ uid }));
            if (sent) setNotice("A test event was queued for delivery.");
          }}
        >
          Send a test event
        </button>
        <Select
          label="Show"
          value={state}
          onChange={(v) => {
            const next = new URLSearchParams(params);
            if (v) next.set("state", v);
            else next.delete("state");
            setParams(next, { replace: true });
          }}
          options={states.map((s) => ({ value: s, label: s || "all deliveries" }))}
        />
      </div>
      {notice ? <p role="status">{notice}</p> : null}
      <FormError error={action.error} />
      <h2>Delivery log</h2>
      {deliveries.isPending ? (
        <Loading what="Loading deliveries" />
      ) : deliveries.error ? (
        <ErrorBox error={deliveries.error} />
      ) : deliveries.data.deliveries.length === 0 ? (
        <Empty>No deliveries{state ? ` in state ${state}` : ""} yet.</Empty>
      ) : (
        <table className="list">
          <caption className="sr-only">Deliveries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">State</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
              <th scope="col">When</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.data.deliveries.map((d) => (
              <tr key={d.eventId}>
                <th scope="row">
                  <span className="mono">{d.eventType}</span>
                  <div className="muted mono">{d.eventId}</div>
                </th>
                <td>{d.state}</td>
                <td>{d.attempts}</td>
                <td>
                  {d.lastStatus ? `HTTP ${d.lastStatus}` : ""} {d.lastError}{" "}
                  {d.latencyMs ? `(${d.latencyMs} ms)` : ""}
                </td>
                <td>{formatTime(d.updateTime)}</td>
                <td>
                  <button
                    type="button"
                    aria-label={`Redeliver event ${d.eventId}`}
                    disabled={action.busy}
                    onClick={async () => {
                      setNotice("");
                      if (
                        await action.run(() =>
                          client.redeliverDelivery({ uid, eventId: d.eventId }),
                        )
                      ) {
                        setNotice(`Event ${d.eventId} was queued again.`);
                      }
                    }}
                  >
                    Redeliver
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
