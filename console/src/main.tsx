import { TransportProvider } from "@connectrpc/connect-query";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter } from "react-router";
import { transport } from "./api/transport.ts";
import { App } from "./app.tsx";
import { setSession } from "./auth/session.ts";
import { takeTokenFragment } from "./auth/token-fragment.ts";
import "./styles.css";

// A development link `#token=…`: the token goes to the tab's session and leaves the address
// bar before anything renders (fragments are never sent to the server).
const taken = takeTokenFragment(location.hash);
if (taken.token) {
  history.replaceState(history.state, "", `${location.pathname}${location.search}${taken.hash}`);
  setSession({ token: taken.token });
} else if (taken.error) {
  history.replaceState(history.state, "", `/sign-in?reason=${encodeURIComponent(taken.error)}`);
}

const queries = new QueryClient({
  defaultOptions: { queries: { staleTime: 15_000, retry: 1, refetchOnWindowFocus: false } },
});

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <TransportProvider transport={transport}>
        <QueryClientProvider client={queries}>
          <BrowserRouter>
            <App />
          </BrowserRouter>
        </QueryClientProvider>
      </TransportProvider>
    </StrictMode>,
  );
}
