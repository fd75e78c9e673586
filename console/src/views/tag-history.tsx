import { createClient } from "@connectrpc/connect";
import { useQuery, useTransport } from "@connectrpc/connect-query";
import { RegistryService } from "@gen/lading/registry/v1/registry_pb.js";
import type { Repo } from "@gen/lading/registry/v2/repos_pb.js";
import { TagsService } from "@gen/lading/registry/v2/tags_pb.js";
import { Link, useSearchParams } from "react-router";
import type { Org } from "../api/orgs.ts";
import { registryHost } from "../api/registry-host.ts";
import { useAction } from "../api/use-action.ts";
import { CopyButton } from "../components/copy-button.tsx";
import { FormError } from "../components/form-error.tsx";
import { formatTime, shortDigest } from "../components/format.ts";
import { Empty, ErrorBox, Loading } from "../components/status.tsx";
import { repoLinks } from "./repo-route.tsx";

/** `2026-01-02T03:04` (datetime-local) ↔ ISO 8601 UTC. */
const toIso = (local: string) => (local ? new Date(local).toISOString() : "");
const toLocal = (iso: string) => {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/**
 * A tag's history as a timeline, oldest first, windowed by `start`/`end` (kept in the address),
 * each build with a button copying its pinned reference `<registry>/<org>/<image>@<digest>`
 * and, for builds the tag no longer points to, one moving it back (`RestoreTag`; the API says
 * why when it cannot: an immutable tag, a build no longer kept, a caller without tag.create).
 */
export function TagHistory({ org, repo, tag }: { org: Org; repo: Repo; tag: string }) {
  const [params, setParams] = useSearchParams();
  const start = params.get("start") ?? "";
  const end = params.get("end") ?? "";
  const found = useQuery(TagsService.method.listTags, {
    uidp: { childrenOf: repo.uid },
    name: tag,
    pageSize: 1,
  });
  const tagUid = found.data?.tags[0]?.uid ?? "";
  const currentDigest = found.data?.tags[0]?.digest ?? "";
  const history = useQuery(
    RegistryService.method.listTagHistory,
    { parentId: tagUid, start, end },
    { enabled: tagUid !== "" },
  );
  const links = repoLinks(org.name, repo.name);
  const client = createClient(TagsService, useTransport());
  const action = useAction();
  const restore = (digest: string) => action.run(() => client.restoreTag({ uid: tagUid, digest }));
  const reference = (digest: string) => `${registryHost()}/${org.name}/${repo.name}@${digest}`;
  const setBound = (key: "start" | "end", value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, toIso(value));
    else next.delete(key);
    setParams(next);
  };
  const items = history.data?.items ?? [];
  return (
    <section aria-labelledby="history-title">
      <h1 id="history-title">
        History of {repo.name}:{tag}
      </h1>
      <p className="muted">
        Every build the tag has pointed to, oldest first. Pin a build by its digest to keep it until
        you choose to move on.
      </p>
      <div className="toolbar">
        <label htmlFor="history-start">From</label>
        <input
          id="history-start"
          type="datetime-local"
          value={toLocal(start)}
          onChange={(e) => setBound("start", e.target.value)}
        />
        <label htmlFor="history-end">Until</label>
        <input
          id="history-end"
          type="datetime-local"
          value={toLocal(end)}
          onChange={(e) => setBound("end", e.target.value)}
        />
      </div>
      <FormError error={action.error} />
      {found.isPending || (tagUid && history.isPending) ? (
        <Loading what="Loading the history" />
      ) : found.error || history.error ? (
        <ErrorBox error={found.error ?? history.error} />
      ) : !tagUid ? (
        <Empty>
          There is no tag “{tag}” in {repo.name}.
        </Empty>
      ) : items.length === 0 ? (
        <Empty>No build of this tag falls in the chosen time window.</Empty>
      ) : (
        <ol className="timeline" aria-label={`Builds of ${tag}, oldest first`}>
          {items.map((r, i) => {
            const previous = items[i - 1];
            const current = i === items.length - 1 && !end;
            return (
              <li
                key={`${r.digest}-${r.updateTimestamp}`}
                className={current ? "current" : undefined}
              >
                <time dateTime={r.updateTimestamp}>{formatTime(r.updateTimestamp)}</time>
                <div className="entry">
                  <Link to={links.image(r.digest)} className="mono" title={r.digest}>
                    {shortDigest(r.digest)}
                  </Link>
                  {current ? <span className="badge">current</span> : null}
                  <CopyButton text={reference(r.digest)} label="Copy pinned reference" />
                  {r.digest !== currentDigest ? (
                    <button
                      type="button"
                      disabled={action.busy}
                      onClick={() => {
                        if (window.confirm(`Move ${tag} back to ${shortDigest(r.digest)}?`)) {
                          void restore(r.digest);
                        }
                      }}
                    >
                      Restore this build
                    </button>
                  ) : null}
                  {previous && previous.digest !== r.digest ? (
                    <Link to={links.compare(previous.digest, r.digest)}>
                      Compare with the build before
                    </Link>
                  ) : null}
                </div>
              </li>
            );
          })}
        </ol>
      )}
      {items.length === 1000 ? (
        <p className="muted">
          The first 1000 builds are shown: narrow the window with From to see later ones.
        </p>
      ) : null}
    </section>
  );
}
