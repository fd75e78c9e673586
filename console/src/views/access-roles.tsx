import { capabilityFromEnum } from "@capabilities";
import { useQuery } from "@connectrpc/connect-query";
import { RolesService } from "@gen/lading/iam/v2/roles_pb.js";
import type { Org } from "../api/orgs.ts";
import { Empty, ErrorBox, Loading } from "../components/status.tsx";

/** Roles the organisation can bind: the built-in ones and its own, each with its capabilities. */
export function Roles({ org }: { org: Org }) {
  const list = useQuery(RolesService.method.listRoles, { pageSize: 200, orderBy: "name" });
  if (list.isPending) return <Loading what="Loading roles" />;
  if (list.error) return <ErrorBox error={list.error} />;
  const roles = list.data.roles.filter(
    (r) => !r.uid.includes("/") || r.uid.startsWith(`${org.uid}/`),
  );
  if (roles.length === 0) return <Empty>No roles.</Empty>;
  return (
    <>
      <h2>Roles</h2>
      {roles.map((r) => (
        <details key={r.uid} className="card">
          <summary>
            <strong>{r.name}</strong> <span className="muted">{r.description}</span>{" "}
            <span className="badge">{r.uid.includes("/") ? "custom" : "built-in"}</span>{" "}
            <span className="muted">{r.capabilities.length} capabilities</span>
          </summary>
          <ul className="plain columns-list">
            {r.capabilities.map((c) => (
              <li key={c} className="mono">
                {capabilityFromEnum(c) ?? c}
              </li>
            ))}
          </ul>
        </details>
      ))}
    </>
  );
}
