import { useQuery } from "@connectrpc/connect-query";
import { ImageInsightsService } from "@gen/lading/registry/v2/image_insights_pb.js";
import type { Repo } from "@gen/lading/registry/v2/repos_pb.js";
import { useState } from "react";
import { Empty, ErrorBox, Loading } from "../components/status.tsx";

/** An image's SBOM packages per architecture, as its scan found them, with a name filter. */
export function ImagePackagesView({ repo, digest }: { repo: Repo; digest: string }) {
  const list = useQuery(ImageInsightsService.method.listImagePackages, { repo: repo.uid, digest });
  const [filter, setFilter] = useState("");
  return (
    <section aria-labelledby="packages-title">
      <h2 id="packages-title">Packages</h2>
      {list.isPending ? (
        <Loading what="Loading the packages" />
      ) : list.error ? (
        <ErrorBox error={list.error} title="No package list" />
      ) : (
        <>
          <div className="toolbar">
            <label htmlFor="package-filter">Filter packages</label>
            <input
              id="package-filter"
              type="search"
              value={filter}
              onChange={(e) => setFilter(e.target.value)}
            />
          </div>
          {list.data.architectures.map((a) => {
            const shown = a.packages.filter((p) =>
              p.name.toLowerCase().includes(filter.toLowerCase()),
            );
            return (
              <details
                key={a.architecture}
                className="card"
                open={list.data.architectures.length === 1}
              >
                <summary>
                  <strong>{a.architecture || "image"}</strong>: {a.totalCount} packages
                  {a.image?.scanState !== "done"
                    ? ` (scan ${a.image?.scanState}${a.image?.reason ? `: ${a.image.reason}` : ""})`
                    : ""}
                </summary>
                {shown.length === 0 ? (
                  <Empty>
                    {a.image?.scanState === "done"
                      ? "No package matches."
                      : "The list comes once the scan is done."}
                  </Empty>
                ) : (
                  <table className="list">
                    <caption className="sr-only">Packages of {a.architecture}</caption>
                    <thead>
                      <tr>
                        <th scope="col">Package</th>
                        <th scope="col">Version</th>
                        <th scope="col">Type</th>
                        <th scope="col">purl</th>
                      </tr>
                    </thead>
                    <tbody>
                      {shown.map((p) => (
                        <tr key={p.purl || `${p.ecosystem}/${p.name}@${p.version}`}>
                          <th scope="row">{p.name}</th>
                          <td className="mono">{p.version}</td>
                          <td>{p.ecosystem}</td>
                          <td className="mono break">{p.purl}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
                {a.totalCount > a.packages.length ? (
                  <p className="muted">
                    The first {a.packages.length} of {a.totalCount} packages are listed.
                  </p>
                ) : null}
              </details>
            );
          })}
        </>
      )}
    </section>
  );
}
