import { useQuery } from "@connectrpc/connect-query";
import {
  type ArchitectureDiff,
  ImageInsightsService,
  type PackageChange,
  type VulnerabilityChange,
} from "@gen/lading/registry/v2/image_insights_pb.js";
import type { Repo } from "@gen/lading/registry/v2/repos_pb.js";
import { TagsService } from "@gen/lading/registry/v2/tags_pb.js";
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import type { Org } from "../api/orgs.ts";
import { Select } from "../components/field.tsx";
import { formatBytes, shortDigest } from "../components/format.ts";
import { SeverityBadge } from "../components/severity.tsx";
import { Empty, ErrorBox, Loading } from "../components/status.tsx";
import { repoLinks } from "./repo-route.tsx";

/** Compares two digests of a repository (`…/-/compare/<from>...<to>`), or lets one pick them. */
export function Compare({ org, repo, spec }: { org: Org; repo: Repo; spec: string }) {
  const [from = "", to = ""] = spec.split("...");
  const links = repoLinks(org.name, repo.name);
  return (
    <section aria-labelledby="compare-title">
      <h1 id="compare-title">Compare two builds of {repo.name}</h1>
      <ComparePicker repo={repo} from={from} to={to} to_={(f, t) => links.compare(f, t)} />
      {from && to ? <DiffView repo={repo} from={from} to={to} org={org} /> : null}
    </section>
  );
}

function ComparePicker(props: {
  repo: Repo;
  from: string;
  to: string;
  to_: (f: string, t: string) => string;
}) {
  const navigate = useNavigate();
  const tags = useQuery(TagsService.method.listTags, {
    uidp: { childrenOf: props.repo.uid },
    pageSize: 200,
    orderBy: "name",
  });
  const [from, setFrom] = useState(props.from);
  const [to, setTo] = useState(props.to);
  const options = [
    { value: "", label: "choose a build" },
    ...(tags.data?.tags ?? []).map((t) => ({
      value: t.digest,
      label: `${t.name} (${shortDigest(t.digest)})`,
    })),
  ];
  for (const d of [props.from, props.to]) {
    if (d && !options.some((o) => o.value === d)) options.push({ value: d, label: shortDigest(d) });
  }
  return (
    <form
      className="toolbar"
      onSubmit={(e) => {
        e.preventDefault();
        if (from && to) navigate(props.to_(from, to));
      }}
    >
      <Select label="Older build" value={from} onChange={setFrom} options={options} />
      <Select label="Newer build" value={to} onChange={setTo} options={options} />
      <button type="submit" disabled={!from || !to}>
        Compare
      </button>
    </form>
  );
}

function DiffView({ repo, from, to, org }: { repo: Repo; from: string; to: string; org: Org }) {
  const diff = useQuery(ImageInsightsService.method.diffImages, { repo: repo.uid, from, to });
  if (diff.isPending) return <Loading what="Comparing" />;
  if (diff.error) return <ErrorBox error={diff.error} />;
  const links = repoLinks(org.name, repo.name);
  return (
    <>
      <p>
        From{" "}
        <Link to={links.image(from)} className="mono">
          {shortDigest(from)}
        </Link>{" "}
        to{" "}
        <Link to={links.image(to)} className="mono">
          {shortDigest(to)}
        </Link>
      </p>
      {diff.data.architectures.length === 0 ? (
        <Empty>Neither build has an image to compare.</Empty>
      ) : null}
      {diff.data.architectures.map((a) => (
        <ArchitectureView key={a.architecture} diff={a} />
      ))}
    </>
  );
}

function ArchitectureView({ diff }: { diff: ArchitectureDiff }) {
  const change = Number(diff.sizeChange);
  return (
    <article className="card" aria-labelledby={`arch-${diff.architecture}`}>
      <h2 id={`arch-${diff.architecture}`}>{diff.architecture || "image"}</h2>
      <p>
        Size {change >= 0 ? "+" : "−"}
        {formatBytes(Math.abs(change))}
        {!diff.complete ? (
          <span className="muted">
            {" "}
            · the package and vulnerability lists wait for both scans (
            {diff.from?.scanState || "none"} → {diff.to?.scanState || "none"}){" "}
            {diff.from?.reason || diff.to?.reason}
          </span>
        ) : null}
      </p>
      {diff.complete ? (
        <div className="columns">
          <div>
            <VulnList title="Vulnerabilities fixed" items={diff.fixed} />
            <VulnList title="New vulnerabilities" items={diff.introduced} />
          </div>
          <div>
            <PackageList title="Packages added" items={diff.added} show={(p) => p.toVersion} />
            <PackageList
              title="Packages removed"
              items={diff.removed}
              show={(p) => p.fromVersion}
            />
            <PackageList
              title="Packages changed"
              items={diff.changed}
              show={(p) => `${p.fromVersion} → ${p.toVersion}`}
            />
          </div>
        </div>
      ) : null}
    </article>
  );
}

function VulnList({ title, items }: { title: string; items: VulnerabilityChange[] }) {
  return (
    <>
      <h3>
        {title} ({items.length})
      </h3>
      {items.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <ul className="plain">
          {items.map((v) => (
            <li key={v.id}>
              <SeverityBadge severity={v.severity} />{" "}
              <Link to={`/vulnerabilities/${encodeURIComponent(v.id)}`}>{v.id}</Link>{" "}
              <span className="muted">in {v.packages.join(", ")}</span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function PackageList(props: {
  title: string;
  items: PackageChange[];
  show: (p: PackageChange) => string;
}) {
  return (
    <>
      <h3>
        {props.title} ({props.items.length})
      </h3>
      {props.items.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <ul className="plain">
          {props.items.map((p) => (
            <li key={`${p.ecosystem}/${p.name}`}>
              <span className="mono">{p.name}</span> {props.show(p)}{" "}
              <span className="muted">{p.ecosystem}</span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
