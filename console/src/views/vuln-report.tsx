import { useQuery } from "@connectrpc/connect-query";
import { SecurityAdvisoryService } from "@gen/lading/advisory/v2/security_advisory_pb.js";
import { RegistryService } from "@gen/lading/registry/v1/registry_pb.js";
import { Fix_State, type Severity } from "@gen/lading/registry/v1/vuln_reports_pb.js";
import type { Repo } from "@gen/lading/registry/v2/repos_pb.js";
import { Link, useSearchParams } from "react-router";
import { SeverityBadge, severities, severityName } from "../components/severity.tsx";
import { Empty, ErrorBox, Loading } from "../components/status.tsx";

const fixNames: Record<number, string> = {
  [Fix_State.FIXED]: "fixed",
  [Fix_State.NOT_FIXED]: "not fixed",
  [Fix_State.WONT_FIX]: "won't fix",
  [Fix_State.UNKNOWN]: "unknown",
};

/**
 * An image's vulnerability report: counts by severity, filters by severity, fix state and package
 * (kept in the address), each vulnerability linked to its page with its advisories and metadata.
 */
export function VulnReportView({ repo, digest }: { repo: Repo; digest: string }) {
  const [params, setParams] = useSearchParams();
  const severity = params.get("severity") ?? "";
  const fix = params.get("fix") ?? "";
  const pkg = params.get("package") ?? "";
  const report = useQuery(RegistryService.method.getVulnReport, { repoId: repo.uid, digest });
  const matches = report.data?.vulnerabilityMatches ?? [];
  const ids = [...new Set(matches.map((m) => m.vulnerability?.id ?? ""))]
    .filter(Boolean)
    .slice(0, 200);
  const metadata = useQuery(
    SecurityAdvisoryService.method.listVulnerabilityMetadata,
    { ids, pageSize: 200 },
    { enabled: ids.length > 0 },
  );
  const meta = new Map((metadata.data?.vulnerabilityMetadata ?? []).map((m) => [m.id, m]));
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: true });
  };
  const counts = new Map<string, number>();
  for (const m of matches) {
    const name = severityName(m.vulnerability?.severity ?? (0 as Severity));
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  const shown = matches.filter(
    (m) =>
      (!severity || severityName(m.vulnerability?.severity ?? (0 as Severity)) === severity) &&
      (!fix || fixNames[m.fix?.state ?? 0] === fix) &&
      (!pkg || (m.pkg?.name ?? "").toLowerCase().includes(pkg.toLowerCase())),
  );
  return (
    <section aria-labelledby="vulns-title">
      <h2 id="vulns-title">Vulnerabilities</h2>
      {report.isPending ? (
        <Loading what="Loading the vulnerability report" />
      ) : report.error ? (
        <ErrorBox error={report.error} title="No report" />
      ) : (
        <>
          <ul className="counts" aria-label="Vulnerabilities by severity">
            {severities.map((s) => (
              <li key={s}>
                <SeverityBadge severity={s} /> {counts.get(severityName(s)) ?? 0}
              </li>
            ))}
          </ul>
          <div className="toolbar">
            <label htmlFor="vuln-severity">Severity</label>
            <select
              id="vuln-severity"
              value={severity}
              onChange={(e) => set("severity", e.target.value)}
            >
              <option value="">all</option>
              {severities.map((s) => (
                <option key={s} value={severityName(s)}>
                  {severityName(s)}
                </option>
              ))}
            </select>
            <label htmlFor="vuln-fix">Fix</label>
            <select id="vuln-fix" value={fix} onChange={(e) => set("fix", e.target.value)}>
              <option value="">all</option>
              {Object.values(fixNames).map((f) => (
                <option key={f} value={f}>
                  {f}
                </option>
              ))}
            </select>
            <label htmlFor="vuln-package">Package</label>
            <input
              id="vuln-package"
              type="search"
              value={pkg}
              onChange={(e) => set("package", e.target.value)}
            />
          </div>
          {matches.length === 0 ? (
            <Empty>No known vulnerability in this image{report.data.lastSeen ? "" : " yet"}.</Empty>
          ) : shown.length === 0 ? (
            <Empty>No vulnerability matches these filters.</Empty>
          ) : (
            <table className="list">
              <caption className="sr-only">Vulnerabilities</caption>
              <thead>
                <tr>
                  <th scope="col">Vulnerability</th>
                  <th scope="col">Severity</th>
                  <th scope="col">Package</th>
                  <th scope="col">Fix</th>
                  <th scope="col">CVSS</th>
                  <th scope="col">KEV</th>
                  <th scope="col">EPSS</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((m) => {
                  const v = m.vulnerability;
                  const id = v?.id ?? "";
                  const info = meta.get(id);
                  const cvss = v?.cvss
                    .map((c) => `${c.score.toFixed(1)} (v${c.version})`)
                    .join(", ");
                  return (
                    <tr key={`${id}-${m.pkg?.purl ?? m.pkg?.name}`}>
                      <th scope="row">
                        <Link to={`/vulnerabilities/${encodeURIComponent(id)}`}>
                          {v?.displayId || id}
                        </Link>
                      </th>
                      <td>
                        <SeverityBadge severity={v?.severity ?? (0 as Severity)} />
                      </td>
                      <td className="mono">
                        {m.pkg?.name}@{m.pkg?.version}
                      </td>
                      <td>
                        {fixNames[m.fix?.state ?? 0]}
                        {m.fix?.versions.length ? ` in ${m.fix.versions.join(", ")}` : ""}
                      </td>
                      <td>{cvss || "—"}</td>
                      <td>
                        {info?.kev ? (
                          <span className="badge sev-critical">known exploited</span>
                        ) : (
                          "—"
                        )}
                      </td>
                      <td>
                        {info?.epssScore !== undefined
                          ? `${(info.epssScore * 100).toFixed(2)} %`
                          : "—"}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
