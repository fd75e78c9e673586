import { Link, Navigate } from "react-router";
import { useOrgs } from "../api/orgs.ts";
import { Empty, ErrorBox, Loading } from "../components/status.tsx";

/** `/`: the caller's first organisation, or the list when there are several. */
export function Home() {
  const { orgs, isPending, error } = useOrgs();
  if (isPending) return <Loading what="Loading organisations" />;
  if (error) return <ErrorBox error={error} />;
  if (orgs.length === 1) return <Navigate to={`/orgs/${orgs[0].name}`} replace />;
  if (orgs.length === 0) {
    return (
      <Empty>You cannot see any organisation yet: ask an administrator for a role binding.</Empty>
    );
  }
  return (
    <section aria-labelledby="orgs-title">
      <h1 id="orgs-title">Organisations</h1>
      <ul className="plain">
        {orgs.map((o) => (
          <li key={o.uid}>
            <Link to={`/orgs/${o.name}`}>{o.name}</Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Any address the console does not know. */
export function NotFound() {
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        There is no such page. <Link to="/">Go to the start</Link>.
      </p>
    </section>
  );
}
