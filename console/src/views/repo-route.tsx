import { useQuery } from "@connectrpc/connect-query";
import { type Repo, ReposService } from "@gen/lading/registry/v2/repos_pb.js";
import { Link, useParams } from "react-router";
import type { Org } from "../api/orgs.ts";
import { Empty, ErrorBox, Loading } from "../components/status.tsx";
import { Compare } from "./compare.tsx";
import { ImageView } from "./image-view.tsx";
import { RepoHome } from "./repo-home.tsx";
import { TagHistory } from "./tag-history.tsx";

/** What a repository page shows, from the address after `/orgs/<org>/repos/`. */
export interface RepoPath {
  /** The repository name (may contain `/`). */
  name: string;
  section: "home" | "tag" | "image" | "compare";
  /** The tag, the digest, or `<from>...<to>`. */
  arg: string;
}

/** Splits `<repo name>[/-/<section>/<arg>]`; `-` is never a repository name segment. */
export function parseRepoPath(splat: string): RepoPath {
  const at = splat.indexOf("/-/");
  if (at < 0) return { name: splat.replace(/\/+$/, ""), section: "home", arg: "" };
  const name = splat.slice(0, at);
  const [section = "", ...rest] = splat.slice(at + 3).split("/");
  const arg = decodeURIComponent(rest.join("/"));
  if (section === "tags" && arg) return { name, section: "tag", arg };
  if (section === "images" && arg) return { name, section: "image", arg };
  if (section === "compare") return { name, section: "compare", arg };
  return { name, section: "home", arg: "" };
}

/** Links inside a repository. */
export const repoLinks = (org: string, repo: string) => ({
  home: `/orgs/${org}/repos/${repo}`,
  tag: (tag: string) => `/orgs/${org}/repos/${repo}/-/tags/${encodeURIComponent(tag)}`,
  image: (digest: string) => `/orgs/${org}/repos/${repo}/-/images/${digest}`,
  compare: (from = "", to = "") =>
    `/orgs/${org}/repos/${repo}/-/compare/${from && to ? `${from}...${to}` : ""}`,
});

/** A repository's pages: resolves the name in the organisation, then shows the section. */
export function RepoRoute({ org }: { org: Org }) {
  const { "*": splat = "" } = useParams();
  const path = parseRepoPath(splat);
  const found = useQuery(ReposService.method.listRepos, {
    uidp: { descendantsOf: org.uid },
    name: path.name,
    pageSize: 1,
  });
  if (found.isPending) return <Loading what="Loading the repository" />;
  if (found.error) return <ErrorBox error={found.error} />;
  const repo: Repo | undefined = found.data.repos[0];
  if (!repo) {
    return (
      <Empty>
        There is no repository “{path.name}” in {org.name} that you can see.{" "}
        <Link to={`/orgs/${org.name}`}>All repositories</Link>
      </Empty>
    );
  }
  const links = repoLinks(org.name, repo.name);
  return (
    <>
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link to={`/orgs/${org.name}`}>{org.name}</Link> / <Link to={links.home}>{repo.name}</Link>
        {path.section === "tag" ? <> / {path.arg}</> : null}
        {path.section === "image" ? <> / image</> : null}
        {path.section === "compare" ? <> / compare</> : null}
      </nav>
      {path.section === "home" ? <RepoHome org={org} repo={repo} /> : null}
      {path.section === "tag" ? <TagHistory org={org} repo={repo} tag={path.arg} /> : null}
      {path.section === "image" ? <ImageView org={org} repo={repo} digest={path.arg} /> : null}
      {path.section === "compare" ? <Compare org={org} repo={repo} spec={path.arg} /> : null}
    </>
  );
}
