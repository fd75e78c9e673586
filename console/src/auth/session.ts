/**
 * The signed-in session of this tab: an API token (and, after a browser sign-in, its refresh
 * token) kept in session storage, never local storage, so it ends with the tab and is never
 * shared with other tabs or written to disk beyond the browser's session (docs/console.md).
 */
export interface Session {
  token: string;
  /** ISO 8601 expiry of `token`, when known. */
  expiry?: string;
  refreshToken?: string;
  /** The identity uid, when the sign-in said it. */
  identity?: string;
}

const key = "lading.session";
const listeners = new Set<() => void>();
let memory: Session | undefined;

function storage(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    return undefined;
  }
}

/** The current session, if any. */
export function currentSession(): Session | undefined {
  if (memory) return memory;
  const text = storage()?.getItem(key);
  if (!text) return undefined;
  try {
    const parsed = JSON.parse(text) as Session;
    memory = typeof parsed.token === "string" ? parsed : undefined;
  } catch {
    memory = undefined;
  }
  return memory;
}

/** Starts (or replaces) the session. */
export function setSession(session: Session): void {
  memory = session;
  storage()?.setItem(key, JSON.stringify(session));
  for (const l of listeners) l();
}

/** Ends the session in this tab. */
export function clearSession(): void {
  memory = undefined;
  storage()?.removeItem(key);
  for (const l of listeners) l();
}

/** Calls `listener` whenever the session changes; returns the unsubscribe function. */
export function onSessionChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

let refreshing: Promise<boolean> | undefined;

/**
 * Trades the refresh token for a new access token (`POST /sts/exchange_refresh_token`); one
 * refresh at a time, whoever asks. Returns false, and ends the session, when it cannot.
 */
export function refreshSession(): Promise<boolean> {
  const session = currentSession();
  if (!session?.refreshToken) return Promise.resolve(false);
  refreshing ??= (async () => {
    try {
      const res = await fetch("/sts/exchange_refresh_token", {
        method: "POST",
        headers: { authorization: `Bearer ${session.refreshToken}` },
      });
      if (!res.ok) {
        clearSession();
        return false;
      }
      const body = (await res.json()) as { token: string; refreshToken: string; expiry: string };
      setSession({ ...session, ...body });
      return true;
    } catch {
      return false;
    } finally {
      refreshing = undefined;
    }
  })();
  return refreshing;
}

/** Signs out: revokes the refresh token's family (`POST /auth/v2/logout`), then forgets all. */
export async function signOut(): Promise<void> {
  const refreshToken = currentSession()?.refreshToken;
  clearSession();
  if (!refreshToken) return;
  await fetch("/auth/v2/logout", {
    method: "POST",
    headers: { authorization: `Bearer ${refreshToken}` },
  }).catch(() => undefined);
}
