import { useQuery } from "@connectrpc/connect-query";
import { AdvisoriesService } from "@gen/lading/vulnerabilities/v2/advisories_pb.js";
import { useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { eventSummary, eventTypeName, severityText } from "../components/advisory-event.tsx";
import { formatTime } from "../components/format.ts";
import { Pager, usePage } from "../components/pager.tsx";
import { Empty, ErrorBox, Loading } from "../components/status.tsx";

const pageSize = 50;

/** `/advisories`: search; `/advisories/<uid>`: one advisory and its timeline. */
export function Advisories() {
  const { "*": uid = "" } = useParams();
  return uid ? <AdvisoryView uid={uid} /> : <AdvisorySearch />;
}

function AdvisorySearch() {
  const [params, setParams] = useSearchParams();
  const query = params.get("query") ?? "";
  const [draft, setDraft] = useState(query);
  const page = usePage();
  // The search's text query does not look at advisory ids: an id is looked up as one.
  const isId = /^CGA(-[0-9a-z]{4}){3}$/i.test(query);
  const list = useQuery(AdvisoriesService.method.listAdvisories, {
    query: isId ? "" : query,
    advisoryIds: isId ? [query] : [],
    pageSize,
    skip: (page - 1) * pageSize,
  });
  return (
    <section aria-labelledby="advisories-title">
      <h1 id="advisories-title">Security advisories</h1>
      <search>
        <form
          className="toolbar"
          onSubmit={(e) => {
            e.preventDefault();
            setParams(draft.trim() ? { query: draft.trim() } : {});
          }}
        >
          <label htmlFor="advisory-query">Search</label>
          <input
            id="advisory-query"
            type="search"
            value={draft}
            placeholder="CVE, advisory id or package"
            onChange={(e) => setDraft(e.target.value)}
          />
          <button type="submit">Search</button>
        </form>
      </search>
      {list.isPending ? (
        <Loading what="Searching advisories" />
      ) : list.error ? (
        <ErrorBox error={list.error} />
      ) : list.data.advisories.length === 0 ? (
        <Empty>
          {query ? `No advisory matches “${query}”.` : "No advisories have been imported."}
        </Empty>
      ) : (
        <>
          <table className="list">
            <caption className="sr-only">Advisories</caption>
            <thead>
              <tr>
                <th scope="col">Advisory</th>
                <th scope="col">Package</th>
                <th scope="col">Aliases</th>
                <th scope="col">Status</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.advisories.map((a) => (
                <tr key={a.uid}>
                  <th scope="row">
                    <Link to={`/advisories/${a.uid}`}>{a.advisoryId}</Link>
                  </th>
                  <td className="mono">{a.artifactName}</td>
                  <td>
                    {a.aliases.map((id) => (
                      <Link
                        key={id}
                        to={`/vulnerabilities/${encodeURIComponent(id)}`}
                        className="alias"
                      >
                        {id}
                      </Link>
                    ))}
                  </td>
                  <td>{eventTypeName(a.latestEventType)}</td>
                  <td>{formatTime(a.updateTime)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager total={Number(list.data.totalCount)} size={pageSize} label="advisories" />
        </>
      )}
    </section>
  );
}

function AdvisoryView({ uid }: { uid: string }) {
  const advisory = useQuery(AdvisoriesService.method.getAdvisory, { uid });
  if (advisory.isPending) return <Loading what="Loading the advisory" />;
  if (advisory.error) return <ErrorBox error={advisory.error} />;
  const a = advisory.data;
  const events = [...a.events].sort((x, y) => x.createTime.localeCompare(y.createTime));
  return (
    <section aria-labelledby="advisory-title">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link to="/advisories">Advisories</Link> / {a.advisoryId}
      </nav>
      <h1 id="advisory-title">
        {a.advisoryId} <span className="muted">in {a.artifactName}</span>
      </h1>
      {a.withdrawnReason ? <p className="error">Withdrawn: {a.withdrawnReason}</p> : null}
      <dl className="facts">
        <dt>Aliases</dt>
        <dd>
          {a.aliases.length
            ? a.aliases.map((id) => (
                <Link key={id} to={`/vulnerabilities/${encodeURIComponent(id)}`} className="alias">
                  {id}
                </Link>
              ))
            : "—"}
        </dd>
        <dt>Namespace</dt>
        <dd>{a.packageNamespace || "—"}</dd>
        <dt>Severity</dt>
        <dd>{a.severities.map(severityText).join("; ") || "—"}</dd>
        <dt>Source</dt>
        <dd>{a.source || "—"}</dd>
      </dl>
      <h2>Timeline</h2>
      {events.length === 0 ? (
        <Empty>This advisory has no events.</Empty>
      ) : (
        <ol className="timeline" aria-label="Advisory events, oldest first">
          {events.map((e, i) => (
            <li key={e.uid || i} className={i === events.length - 1 ? "current" : undefined}>
              <time dateTime={e.createTime}>{formatTime(e.createTime)}</time>
              <div className="entry">{eventSummary(e)}</div>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
