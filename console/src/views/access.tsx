import { NavLink, useParams } from "react-router";
import type { Org } from "../api/orgs.ts";
import { Bindings } from "./access-bindings.tsx";
import { Groups } from "./access-groups.tsx";
import { Identities } from "./access-identities.tsx";
import { Invites } from "./access-invites.tsx";
import { Providers } from "./access-providers.tsx";
import { Roles } from "./access-roles.tsx";
import { Terms } from "./access-terms.tsx";

const sections = [
  ["identities", "Identities"],
  ["bindings", "Role bindings"],
  ["roles", "Roles"],
  ["groups", "Groups"],
  ["providers", "Identity providers"],
  ["invites", "Invites"],
  ["terms", "Terms"],
] as const;

/** Access management of an organisation, one section per address. */
export function Access({ org }: { org: Org }) {
  const { section = "identities" } = useParams();
  return (
    <section aria-labelledby="access-title">
      <h1 id="access-title">Access to {org.name}</h1>
      <nav className="tabs" aria-label="Access sections">
        {sections.map(([key, label]) => (
          <NavLink
            key={key}
            to={`/orgs/${org.name}/access/${key}`}
            className={() => (key === section ? "active" : "")}
          >
            {label}
          </NavLink>
        ))}
      </nav>
      {section === "identities" ? <Identities org={org} /> : null}
      {section === "bindings" ? <Bindings org={org} /> : null}
      {section === "roles" ? <Roles org={org} /> : null}
      {section === "groups" ? <Groups org={org} /> : null}
      {section === "providers" ? <Providers org={org} /> : null}
      {section === "invites" ? <Invites org={org} /> : null}
      {section === "terms" ? <Terms org={org} /> : null}
    </section>
  );
}
