import { useQuery } from "@connectrpc/connect-query";
import { GarbageCollectionService } from "@gen/lading/lifecycle/v2/garbage_collection_pb.js";
import { type ReactNode, useEffect, useRef } from "react";
import { Link, NavLink, useLocation, useNavigate, useParams } from "react-router";
import { useOrgs } from "../api/orgs.ts";
import { signOut } from "../auth/session.ts";
import { useTheme } from "./theme.ts";

/** The page frame: skip link, header with navigation, org switcher, theme and sign-out. */
export function Layout({ children }: { children: ReactNode }) {
  const [theme, toggleTheme] = useTheme();
  const { org = "" } = useParams();
  const { orgs } = useOrgs();
  const navigate = useNavigate();
  const location = useLocation();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  // Moving to another page moves the focus to its content, so a screen reader starts there; the
  // first page keeps the browser's own start, where the skip link is the first stop.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each navigation
  useEffect(() => {
    if (first.current) first.current = false;
    else main.current?.focus({ preventScroll: true });
  }, [location.pathname]);
  const current = org || orgs[0]?.name || "";
  // The installation's pages are linked for its operators only: the API says who they are.
  const operator = useQuery(
    GarbageCollectionService.method.listGarbageCollections,
    { pageSize: 1 },
    { retry: false, staleTime: 300_000 },
  ).isSuccess;
  const nav = current
    ? [
        [`/orgs/${current}`, "Repositories"],
        [`/orgs/${current}/access`, "Access"],
        [`/orgs/${current}/webhooks`, "Webhooks"],
        [`/orgs/${current}/storage`, "Storage"],
      ]
    : [];
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link to="/" className="brand">
          Lading
        </Link>
        <nav aria-label="Main">
          {nav.map(([to, label]) => (
            <NavLink key={to} to={to} end={label === "Repositories" ? false : undefined}>
              {label}
            </NavLink>
          ))}
          <NavLink to="/advisories">Advisories</NavLink>
          <NavLink to="/libraries">Libraries</NavLink>
          {operator ? <NavLink to="/garbage-collection">Garbage collection</NavLink> : null}
        </nav>
        <div className="tools">
          {orgs.length > 0 ? (
            <label className="org-switch">
              <span className="sr-only">Organisation</span>
              <select
                aria-label="Organisation"
                value={current}
                onChange={(e) => navigate(`/orgs/${e.target.value}`)}
              >
                {orgs.map((o) => (
                  <option key={o.uid} value={o.name}>
                    {o.name}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
          <button
            type="button"
            onClick={toggleTheme}
            aria-label={`Switch to ${theme === "dark" ? "light" : "dark"} theme`}
          >
            {theme === "dark" ? "☀" : "☾"}
          </button>
          <button
            type="button"
            onClick={async () => {
              await signOut();
              navigate("/sign-in");
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
