import { useQuery } from "@connectrpc/connect-query";
import { ImagesService } from "@gen/lading/registry/v2/images_pb.js";
import type { Repo } from "@gen/lading/registry/v2/repos_pb.js";
import { type Tag, TagsService } from "@gen/lading/registry/v2/tags_pb.js";
import { Link } from "react-router";
import type { Org } from "../api/orgs.ts";
import { formatBytes, formatTime, shortDigest } from "../components/format.ts";
import { Markdown } from "../components/markdown.tsx";
import { Pager, usePage } from "../components/pager.tsx";
import { Empty, ErrorBox, Loading } from "../components/status.tsx";
import { repoLinks } from "./repo-route.tsx";

const pageSize = 50;

/** A repository: its readme and its tags. */
export function RepoHome({ org, repo }: { org: Org; repo: Repo }) {
  const page = usePage();
  const tags = useQuery(TagsService.method.listTags, {
    uidp: { childrenOf: repo.uid },
    orderBy: "updated_at desc",
    pageSize,
    skip: (page - 1) * pageSize,
  });
  const links = repoLinks(org.name, repo.name);
  return (
    <section aria-labelledby="repo-title">
      <h1 id="repo-title">{repo.name}</h1>
      {repo.description ? <p className="lead">{repo.description}</p> : null}
      <div className="columns">
        <div>
          <h2>Tags</h2>
          {tags.isPending ? (
            <Loading what="Loading tags" />
          ) : tags.error ? (
            <ErrorBox error={tags.error} />
          ) : tags.data.tags.length === 0 ? (
            <Empty>No tags yet: push an image with a tag to see it here.</Empty>
          ) : (
            <>
              <p>
                <Link to={links.compare()}>Compare two builds</Link>
              </p>
              <table className="list">
                <caption className="sr-only">Tags of {repo.name}</caption>
                <thead>
                  <tr>
                    <th scope="col">Tag</th>
                    <th scope="col">Digest</th>
                    <th scope="col">Architectures</th>
                    <th scope="col">Size</th>
                    <th scope="col">Last push</th>
                  </tr>
                </thead>
                <tbody>
                  {tags.data.tags.map((t) => (
                    <TagRow key={t.uid} tag={t} repo={repo} org={org} />
                  ))}
                </tbody>
              </table>
              <Pager total={Number(tags.data.totalCount)} size={pageSize} label="tags" />
            </>
          )}
        </div>
        <div>
          <h2>Readme</h2>
          {repo.readme ? (
            <Markdown text={repo.readme} />
          ) : (
            <Empty>This repository has no readme.</Empty>
          )}
        </div>
      </div>
    </section>
  );
}

function TagRow({ tag, repo, org }: { tag: Tag; repo: Repo; org: Org }) {
  const image = useQuery(ImagesService.method.getImage, { repoUid: repo.uid, digest: tag.digest });
  const links = repoLinks(org.name, repo.name);
  return (
    <tr>
      <th scope="row">
        <Link to={links.tag(tag.name)}>{tag.name}</Link>
        {tag.deprecated ? <span className="badge warn">deprecated</span> : null}
      </th>
      <td>
        <Link to={links.image(tag.digest)} className="mono">
          {shortDigest(tag.digest)}
        </Link>
      </td>
      <td>{image.data ? image.data.architectures.join(", ") || "—" : image.error ? "—" : "…"}</td>
      <td>{image.data ? formatBytes(image.data.size) : image.error ? "—" : "…"}</td>
      <td>{formatTime(tag.updateTime)}</td>
    </tr>
  );
}
