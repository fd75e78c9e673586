import { type ReactNode, useSyncExternalStore } from "react";
import { Navigate, Route, Routes, useLocation } from "react-router";
import { currentSession, onSessionChange } from "./auth/session.ts";
import { Layout } from "./components/layout.tsx";
import { RequireOrg } from "./components/require-org.tsx";
import { Access } from "./views/access.tsx";
import { Advisories } from "./views/advisories.tsx";
import { Home, NotFound } from "./views/home.tsx";
import { Libraries } from "./views/libraries.tsx";
import { RepoRoute } from "./views/repo-route.tsx";
import { Repos } from "./views/repos.tsx";
import { SignedIn, SignIn } from "./views/sign-in.tsx";
import { Storage } from "./views/storage.tsx";
import { Vulnerability } from "./views/vulnerability.tsx";
import { Webhooks } from "./views/webhooks.tsx";

/** Pages that need a session send the user to sign in first, then back. */
function Private({ children }: { children: ReactNode }) {
  const signedIn = useSyncExternalStore(onSessionChange, () => currentSession() !== undefined);
  const location = useLocation();
  if (!signedIn) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return <Layout>{children}</Layout>;
}

const inOrg = (
  view: (org: Parameters<Parameters<typeof RequireOrg>[0]["children"]>[0]) => ReactNode,
) => (
  <Private>
    <RequireOrg>{view}</RequireOrg>
  </Private>
);

/** Every page of the console has its own address. */
export function App() {
  return (
    <Routes>
      <Route path="/sign-in" element={<SignIn />} />
      <Route path="/signed-in" element={<SignedIn />} />
      <Route
        path="/"
        element={
          <Private>
            <Home />
          </Private>
        }
      />
      <Route path="/orgs/:org" element={inOrg((org) => <Repos org={org} />)} />
      <Route path="/orgs/:org/repos/*" element={inOrg((org) => <RepoRoute org={org} />)} />
      <Route path="/orgs/:org/access/:section?" element={inOrg((org) => <Access org={org} />)} />
      <Route path="/orgs/:org/webhooks/*" element={inOrg((org) => <Webhooks org={org} />)} />
      <Route path="/orgs/:org/storage" element={inOrg((org) => <Storage org={org} />)} />
      <Route
        path="/advisories/*"
        element={
          <Private>
            <Advisories />
          </Private>
        }
      />
      <Route
        path="/vulnerabilities/:id"
        element={
          <Private>
            <Vulnerability />
          </Private>
        }
      />
      <Route
        path="/libraries/*"
        element={
          <Private>
            <Libraries />
          </Private>
        }
      />
      <Route
        path="*"
        element={
          <Private>
            <NotFound />
          </Private>
        }
      />
    </Routes>
  );
}
