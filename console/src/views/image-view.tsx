import { toJsonString } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { useQuery, useTransport } from "@connectrpc/connect-query";
import {
  ImageInsightsService,
  VexDocumentSchema,
} from "@gen/lading/registry/v2/image_insights_pb.js";
import { ImagesService } from "@gen/lading/registry/v2/images_pb.js";
import type { Repo } from "@gen/lading/registry/v2/repos_pb.js";
import { useState } from "react";
import type { Org } from "../api/orgs.ts";
import { registryHost } from "../api/registry-host.ts";
import { CopyButton } from "../components/copy-button.tsx";
import { formatBytes, shortDigest } from "../components/format.ts";
import { ErrorBox, Loading } from "../components/status.tsx";
import { ImagePackagesView } from "./image-packages.tsx";
import { VulnReportView } from "./vuln-report.tsx";

/** An image: its platforms and sizes, its pinned reference, its vulnerability report, its VEX. */
export function ImageView({ org, repo, digest }: { org: Org; repo: Repo; digest: string }) {
  const image = useQuery(ImagesService.method.getImage, { repoUid: repo.uid, digest });
  return (
    <section aria-labelledby="image-title">
      <h1 id="image-title">
        {repo.name}@<span className="mono break">{digest}</span>
      </h1>
      <p>
        <CopyButton
          text={`${registryHost()}/${org.name}/${repo.name}@${digest}`}
          label="Copy pinned reference"
        />{" "}
        <VexDownload repo={repo} digest={digest} />
      </p>
      {image.isPending ? (
        <Loading what="Loading the image" />
      ) : image.error ? (
        <ErrorBox error={image.error} />
      ) : (
        <>
          <h2>Platforms</h2>
          <table className="list">
            <caption className="sr-only">Platforms</caption>
            <thead>
              <tr>
                <th scope="col">Architecture</th>
                <th scope="col">Size (config and layers)</th>
                <th scope="col">Layers</th>
              </tr>
            </thead>
            <tbody>
              {(image.data.architectures.length
                ? image.data.architectures
                : [image.data.architecture]
              ).map((arch) => (
                <PlatformRow key={arch || "single"} repo={repo} digest={digest} arch={arch} />
              ))}
            </tbody>
          </table>
          <p className="muted">
            Media type <span className="mono">{image.data.mediaType}</span>,{" "}
            {formatBytes(image.data.size)} in all.
          </p>
        </>
      )}
      <VulnReportView repo={repo} digest={digest} />
      <ImagePackagesView repo={repo} digest={digest} />
    </section>
  );
}

function PlatformRow({ repo, digest, arch }: { repo: Repo; digest: string; arch: string }) {
  const one = useQuery(ImagesService.method.getImage, {
    repoUid: repo.uid,
    digest,
    architecture: arch,
  });
  return (
    <tr>
      <th scope="row">{arch || "—"}</th>
      <td>{one.data ? formatBytes(one.data.size) : one.error ? "—" : "…"}</td>
      <td>
        {one.data ? (
          <details>
            <summary>
              {one.data.layers.length} {one.data.layers.length === 1 ? "layer" : "layers"}
            </summary>
            <ol className="layers">
              {one.data.layers.map((l, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: a manifest may list one layer twice
                <li key={`${l.digest}-${i}`}>
                  <span className="mono" title={l.digest}>
                    {shortDigest(l.digest)}
                  </span>{" "}
                  {formatBytes(l.size)} <span className="muted">{l.mediaType}</span>
                </li>
              ))}
            </ol>
          </details>
        ) : (
          "…"
        )}
      </td>
    </tr>
  );
}

/** Downloads the image's OpenVEX document as a file. */
function VexDownload({ repo, digest }: { repo: Repo; digest: string }) {
  const transport = useTransport();
  const [error, setError] = useState<unknown>();
  return (
    <>
      <button
        type="button"
        onClick={async () => {
          setError(undefined);
          try {
            const client = createClient(ImageInsightsService, transport);
            const vex = await client.getImageVex({ repo: repo.uid, digest });
            const blob = new Blob([toJsonString(VexDocumentSchema, vex, { prettySpaces: 2 })], {
              type: "application/json",
            });
            const a = document.createElement("a");
            a.href = URL.createObjectURL(blob);
            a.download = `${repo.name.replaceAll("/", "_")}-${digest.slice(7, 19)}.openvex.json`;
            a.click();
            setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
          } catch (e) {
            setError(e);
          }
        }}
      >
        Download VEX
      </button>
      {error ? <ErrorBox error={error} title="VEX" /> : null}
    </>
  );
}
