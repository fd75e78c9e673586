import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { currentSession, refreshSession } from "../auth/session.ts";

/**
 * Adds the session's token to every call; on UNAUTHENTICATED, refreshes once (browser
 * sign-ins have a refresh token) and tries again.
 */
const authenticate: Interceptor = (next) => async (req) => {
  const token = currentSession()?.token;
  if (token) req.header.set("authorization", `Bearer ${token}`);
  try {
    return await next(req);
  } catch (error) {
    if (
      error instanceof ConnectError &&
      error.code === Code.Unauthenticated &&
      token &&
      (await refreshSession())
    ) {
      req.header.set("authorization", `Bearer ${currentSession()?.token}`);
      return await next(req);
    }
    throw error;
  }
};

/** The one client of Lading's API: Connect over HTTP on this origin, the generated types. */
export const transport = createConnectTransport({
  baseUrl: location.origin,
  useBinaryFormat: true,
  interceptors: [authenticate],
});
