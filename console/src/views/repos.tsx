import { useQuery } from "@connectrpc/connect-query";
import { ReposService } from "@gen/lading/registry/v2/repos_pb.js";
import { useState } from "react";
import { Link, useSearchParams } from "react-router";
import type { Org } from "../api/orgs.ts";
import { formatTime } from "../components/format.ts";
import { Pager, usePage } from "../components/pager.tsx";
import { Empty, ErrorBox, Loading } from "../components/status.tsx";

const pageSize = 50;
const sorts = [
  ["name", "Name A–Z"],
  ["name desc", "Name Z–A"],
  ["updated_at desc", "Recently updated"],
  ["created_at desc", "Newest"],
] as const;

/** The repositories of an organisation: find by name, sort, pages of 50, the total count. */
export function Repos({ org }: { org: Org }) {
  const [params, setParams] = useSearchParams();
  const page = usePage();
  const name = params.get("name") ?? "";
  const sort = params.get("sort") ?? "name";
  const [draft, setDraft] = useState(name);
  const list = useQuery(ReposService.method.listRepos, {
    uidp: { descendantsOf: org.uid },
    name,
    orderBy: sort,
    pageSize,
    skip: (page - 1) * pageSize,
  });
  const total = Number(list.data?.totalCount ?? 0);
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    next.delete("page");
    setParams(next);
  };
  return (
    <section aria-labelledby="repos-title">
      <h1 id="repos-title">Repositories of {org.name}</h1>
      <search>
        <form
          className="toolbar"
          onSubmit={(e) => {
            e.preventDefault();
            set("name", draft.trim());
          }}
        >
          <label htmlFor="repo-name">Repository name</label>
          <input
            id="repo-name"
            type="search"
            value={draft}
            placeholder="exact name, e.g. app"
            onChange={(e) => setDraft(e.target.value)}
          />
          <button type="submit">Find</button>
          <label htmlFor="repo-sort">Sort</label>
          <select id="repo-sort" value={sort} onChange={(e) => set("sort", e.target.value)}>
            {sorts.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </form>
      </search>
      {list.isPending ? (
        <Loading what="Loading repositories" />
      ) : list.error ? (
        <ErrorBox error={list.error} />
      ) : list.data.repos.length === 0 ? (
        <Empty>
          {name
            ? `No repository is named “${name}”.`
            : "No repositories yet. Push an image with docker, podman or skopeo to create one."}
        </Empty>
      ) : (
        <>
          <table className="list">
            <caption className="sr-only">Repositories</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Description</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.repos.map((r) => (
                <tr key={r.uid}>
                  <td>
                    <Link to={`/orgs/${org.name}/repos/${r.name}`}>{r.name}</Link>
                  </td>
                  <td>{r.description}</td>
                  <td>{formatTime(r.updateTime)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager total={total} size={pageSize} label="repositories" />
        </>
      )}
    </section>
  );
}
