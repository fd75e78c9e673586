import { lazy, type ReactNode, Suspense, useSyncExternalStore } from "react";
import { Navigate, Route, Routes, useLocation } from "react-router";
import { currentSession, onSessionChange } from "./auth/session.ts";
import { Layout } from "./components/layout.tsx";
import { RequireOrg } from "./components/require-org.tsx";
import { Loading } from "./components/status.tsx";
import { Home, NotFound } from "./views/home.tsx";
import { SignedIn, SignIn } from "./views/sign-in.tsx";

// Each page is its own chunk, loaded when first visited: the first paint waits for none of them.
const Access = lazy(() => import("./views/access.tsx").then((m) => ({ default: m.Access })));
const Advisories = lazy(() =>
  import("./views/advisories.tsx").then((m) => ({ default: m.Advisories })),
);
const GarbageCollection = lazy(() =>
  import("./views/garbage-collection.tsx").then((m) => ({ default: m.GarbageCollection })),
);
const Libraries = lazy(() =>
  import("./views/libraries.tsx").then((m) => ({ default: m.Libraries })),
);
const RepoRoute = lazy(() =>
  import("./views/repo-route.tsx").then((m) => ({ default: m.RepoRoute })),
);
const Repos = lazy(() => import("./views/repos.tsx").then((m) => ({ default: m.Repos })));
const Storage = lazy(() => import("./views/storage.tsx").then((m) => ({ default: m.Storage })));
const Vulnerability = lazy(() =>
  import("./views/vulnerability.tsx").then((m) => ({ default: m.Vulnerability })),
);
const Webhooks = lazy(() => import("./views/webhooks.tsx").then((m) => ({ default: m.Webhooks })));

/** Pages that need a session send the user to sign in first, then back. */
function Private({ children }: { children: ReactNode }) {
  const signedIn = useSyncExternalStore(onSessionChange, () => currentSession() !== undefined);
  const location = useLocation();
  if (!signedIn) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return (
    <Layout>
      <Suspense fallback={<Loading what="Loading the page" />}>{children}</Suspense>
    </Layout>
  );
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
        path="/garbage-collection"
        element={
          <Private>
            <GarbageCollection />
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
