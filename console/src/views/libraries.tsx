import { useQuery } from "@connectrpc/connect-query";
import {
  AdvisoryStatus,
  ArtifactsService,
  Ecosystem,
  EcosystemSchema,
} from "@gen/lading/libraries/v2/libraries_pb.js";
import { useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { formatBytes, formatTime } from "../components/format.ts";
import { Pager, usePage } from "../components/pager.tsx";
import { Empty, ErrorBox, Loading } from "../components/status.tsx";

const pageSize = 50;
const ecosystems = [Ecosystem.JAVA, Ecosystem.PYTHON, Ecosystem.JAVASCRIPT];
const ecosystemName = (e: number) =>
  (EcosystemSchema.values.find((v) => v.number === e)?.name ?? "")
    .replace(/^ECOSYSTEM_/, "")
    .toLowerCase();

/** `/libraries`: the catalogue by ecosystem; `/libraries/<artifact uid>`: its versions and advisories. */
export function Libraries() {
  const { "*": uid = "" } = useParams();
  return uid ? <ArtifactView uid={uid} /> : <Catalogue />;
}

function Catalogue() {
  const [params, setParams] = useSearchParams();
  const ecosystem = Number(params.get("ecosystem") ?? "0");
  const query = params.get("query") ?? "";
  const [draft, setDraft] = useState(query);
  const page = usePage();
  const counts = useQuery(ArtifactsService.method.getArtifactCount, { ecosystems });
  const list = useQuery(ArtifactsService.method.listArtifacts, {
    ecosystems: ecosystem ? [ecosystem] : [],
    query,
    pageSize,
    skip: (page - 1) * pageSize,
  });
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    next.delete("page");
    setParams(next);
  };
  return (
    <section aria-labelledby="libraries-title">
      <h1 id="libraries-title">Libraries</h1>
      <ul className="counts" aria-label="Packages per ecosystem">
        {(counts.data?.counts ?? []).map((c) => (
          <li key={c.ecosystem}>
            <button
              type="button"
              className="link"
              onClick={() => set("ecosystem", String(c.ecosystem))}
            >
              {ecosystemName(c.ecosystem)}
            </button>{" "}
            {Number(c.totalCount).toLocaleString("en")}
          </li>
        ))}
      </ul>
      <search>
        <form
          className="toolbar"
          onSubmit={(e) => {
            e.preventDefault();
            set("query", draft.trim());
          }}
        >
          <label htmlFor="library-ecosystem">Ecosystem</label>
          <select
            id="library-ecosystem"
            value={ecosystem}
            onChange={(e) => set("ecosystem", e.target.value === "0" ? "" : e.target.value)}
          >
            <option value="0">all</option>
            {ecosystems.map((e) => (
              <option key={e} value={e}>
                {ecosystemName(e)}
              </option>
            ))}
          </select>
          <label htmlFor="library-query">Name</label>
          <input
            id="library-query"
            type="search"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
          />
          <button type="submit">Search</button>
        </form>
      </search>
      {list.isPending ? (
        <Loading what="Loading libraries" />
      ) : list.error ? (
        <ErrorBox error={list.error} />
      ) : list.data.artifacts.length === 0 ? (
        <Empty>
          No library matches. Publish one with npm, twine or Maven, or ask the operator to import
          some.
        </Empty>
      ) : (
        <>
          <table className="list">
            <caption className="sr-only">Libraries</caption>
            <thead>
              <tr>
                <th scope="col">Package</th>
                <th scope="col">Ecosystem</th>
                <th scope="col">Latest</th>
                <th scope="col">Versions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.artifacts.map((a) => (
                <tr key={a.uid}>
                  <th scope="row">
                    <Link to={`/libraries/${a.uid}`}>{a.displayName || a.name}</Link>
                    <div className="muted">{a.description}</div>
                  </th>
                  <td>{ecosystemName(a.ecosystem)}</td>
                  <td className="mono">{a.latestVersion}</td>
                  <td>{a.versionCount}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager total={Number(list.data.totalCount)} size={pageSize} label="libraries" />
        </>
      )}
    </section>
  );
}

function ArtifactView({ uid }: { uid: string }) {
  const page = usePage();
  const versions = useQuery(ArtifactsService.method.listArtifactVersions, {
    artifactId: uid,
    pageSize,
    skip: (page - 1) * pageSize,
  });
  return (
    <section aria-labelledby="artifact-title">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link to="/libraries">Libraries</Link> / {versions.data?.artifactVersions[0]?.name ?? "…"}
      </nav>
      <h1 id="artifact-title">{versions.data?.artifactVersions[0]?.name ?? "Library"}</h1>
      {versions.isPending ? (
        <Loading what="Loading versions" />
      ) : versions.error ? (
        <ErrorBox error={versions.error} />
      ) : versions.data.artifactVersions.length === 0 ? (
        <Empty>This library has no versions.</Empty>
      ) : (
        <>
          <table className="list">
            <caption className="sr-only">Versions</caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Size</th>
                <th scope="col">Published</th>
                <th scope="col">Advisories</th>
              </tr>
            </thead>
            <tbody>
              {versions.data.artifactVersions.map((v) => (
                <tr key={v.uid}>
                  <th scope="row" className="mono">
                    {v.version}
                  </th>
                  <td>{formatBytes(v.sizeBytes)}</td>
                  <td>{formatTime(v.createTime)}</td>
                  <td>
                    {v.advisories.length === 0
                      ? "none known"
                      : v.advisories.map((a) => (
                          <div key={a.advisoryId}>
                            <Link
                              to={`/vulnerabilities/${encodeURIComponent(a.aliases[0] ?? a.advisoryId)}`}
                            >
                              {a.aliases[0] ?? a.advisoryId}
                            </Link>{" "}
                            {a.status === AdvisoryStatus.FIXED
                              ? `fixed in ${a.fixedVersion}`
                              : "affected"}
                          </div>
                        ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager total={Number(versions.data.totalCount)} size={pageSize} label="versions" />
        </>
      )}
    </section>
  );
}
