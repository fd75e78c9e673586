import { useQuery } from "@connectrpc/connect-query";
import { StorageService } from "@gen/lading/lifecycle/v2/storage_pb.js";
import { ReposService } from "@gen/lading/registry/v2/repos_pb.js";
import { Link } from "react-router";
import type { Org } from "../api/orgs.ts";
import { formatBytes } from "../components/format.ts";
import { Pager, usePage } from "../components/pager.tsx";
import { Empty, ErrorBox, Loading } from "../components/status.tsx";

const pageSize = 20;

/**
 * An organisation's storage: what it holds (each blob counted once however many repositories
 * link it), its quota and how much of it is used, and the bytes of each repository. Garbage
 * collection runs are the installation's, not an organisation's: its operators see them on
 * their own page (docs/operations.md), which this page links to.
 */
export function Storage({ org }: { org: Org }) {
  const usage = useQuery(StorageService.method.getOrganizationStorage, { org: org.uid });
  return (
    <section aria-labelledby="storage-title">
      <h1 id="storage-title">Storage of {org.name}</h1>
      {usage.isPending ? (
        <Loading what="Loading the storage figures" />
      ) : usage.error ? (
        <ErrorBox error={usage.error} />
      ) : (
        <div className="card">
          <p>
            <strong>{formatBytes(usage.data.bytes)}</strong> in {usage.data.objects.toString()}{" "}
            blobs and manifests
          </p>
          {usage.data.hasQuota ? (
            <QuotaBar used={usage.data.bytes} quota={usage.data.quotaBytes} />
          ) : (
            <p className="muted">No quota is set for {org.name}.</p>
          )}
        </div>
      )}
      <RepoUsage org={org} />
      <p className="muted">
        Unreferenced blobs and manifests are freed by the garbage collector in the background; the
        installation's operators see its runs and start one on the{" "}
        <Link to="/garbage-collection">Garbage collection</Link> page.
      </p>
    </section>
  );
}

function QuotaBar({ used, quota }: { used: bigint; quota: bigint }) {
  const percent = quota > 0n ? Number((used * 1000n) / quota) / 10 : 100;
  return (
    <p>
      <label htmlFor="quota-meter">
        {percent.toFixed(1)} % of the {formatBytes(quota)} quota
      </label>{" "}
      <meter
        id="quota-meter"
        min={0}
        max={100}
        high={80}
        optimum={0}
        value={Math.min(percent, 100)}
      />
    </p>
  );
}

/** A page of the organisation's repositories, each with its bytes. */
function RepoUsage({ org }: { org: Org }) {
  const page = usePage();
  const repos = useQuery(ReposService.method.listRepos, {
    uidp: { descendantsOf: org.uid },
    orderBy: "name",
    pageSize,
    skip: (page - 1) * pageSize,
  });
  if (repos.isPending) return <Loading what="Loading the repositories" />;
  if (repos.error) return <ErrorBox error={repos.error} />;
  if (repos.data.repos.length === 0) return <Empty>{org.name} has no repositories yet.</Empty>;
  return (
    <>
      <table aria-label="Storage by repository">
        <thead>
          <tr>
            <th scope="col">Repository</th>
            <th scope="col">Size</th>
            <th scope="col">Objects</th>
          </tr>
        </thead>
        <tbody>
          {repos.data.repos.map((repo) => (
            <RepoRow key={repo.uid} org={org} uid={repo.uid} name={repo.name} />
          ))}
        </tbody>
      </table>
      <Pager total={Number(repos.data.totalCount)} size={pageSize} label="repositories" />
    </>
  );
}

function RepoRow({ org, uid, name }: { org: Org; uid: string; name: string }) {
  const usage = useQuery(StorageService.method.getRepoStorage, { uid });
  return (
    <tr>
      <th scope="row">
        <Link to={`/orgs/${org.name}/repos/${name}`}>{name}</Link>
      </th>
      <td>{usage.data ? formatBytes(usage.data.bytes) : usage.error ? "—" : "…"}</td>
      <td>{usage.data ? usage.data.objects.toString() : ""}</td>
    </tr>
  );
}
