/** A probe's answer: the HTTP status and its JSON body. */
export interface ProbeAnswer {
  status: number;
  body: string;
}

/**
 * The answer to `GET <path>` when `path` is a probe, on either listener, so both mean the
 * same: `/healthz` is 200 `{"status":"ok"}` while the process serves at all; `/readyz` is 200
 * `{"status":"ready"}` from the moment every part is started until shutdown begins, and 503
 * `{"status":"not ready"}` otherwise. Undefined for any other path.
 */
export function probeAnswer(path: string, isReady: () => boolean): ProbeAnswer | undefined {
  if (path === "/healthz") return { status: 200, body: JSON.stringify({ status: "ok" }) };
  if (path !== "/readyz") return undefined;
  const ready = isReady();
  return {
    status: ready ? 200 : 503,
    body: JSON.stringify({ status: ready ? "ready" : "not ready" }),
  };
}
