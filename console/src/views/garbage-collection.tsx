import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { useQuery, useTransport } from "@connectrpc/connect-query";
import {
  GarbageCollectionService,
  type GarbageCollection as Run,
} from "@gen/lading/lifecycle/v2/garbage_collection_pb.js";
import type { ReactNode } from "react";
import { useAction } from "../api/use-action.ts";
import { FormError } from "../components/form-error.tsx";
import { formatBytes, formatTime } from "../components/format.ts";
import { Pager, usePage } from "../components/pager.tsx";
import { Empty, ErrorBox, Loading } from "../components/status.tsx";

const pageSize = 20;

/** Whether the API refused the caller as no operator of the installation. */
export function notOperator(error: unknown): boolean {
  return error instanceof ConnectError && error.code === Code.PermissionDenied;
}

/**
 * The installation's garbage collections (docs/operations.md): every run, newest first, with
 * what it deleted and how long it took, and buttons to start one now or a dry run. Only the
 * operators the server names may see them; anyone else is told so, not shown an error. The
 * list is read again every two seconds while a run is under way.
 */
export function GarbageCollection() {
  const page = usePage();
  const client = createClient(GarbageCollectionService, useTransport());
  const action = useAction();
  const runs = useQuery(
    GarbageCollectionService.method.listGarbageCollections,
    { pageSize, skip: (page - 1) * pageSize },
    {
      retry: (count, error) => !notOperator(error) && count < 1,
      refetchInterval: (query) =>
        query.state.data?.garbageCollections.some((r) => r.state === "running") ? 2000 : false,
    },
  );
  if (runs.isPending) {
    return (
      <Frame>
        <Loading what="Loading the garbage collections" />
      </Frame>
    );
  }
  if (runs.error) {
    return (
      <Frame>
        {notOperator(runs.error) ? (
          <p className="empty" role="status">
            Garbage collections are shown only to the installation's operators (the identities the
            server's <code>operators</code> setting names). Ask one of them to run a collection.
          </p>
        ) : (
          <ErrorBox error={runs.error} />
        )}
      </Frame>
    );
  }
  const running = runs.data.garbageCollections.some((r) => r.state === "running");
  const start = (dryRun: boolean) => void action.run(() => client.runGarbageCollection({ dryRun }));
  return (
    <Frame>
      <p>
        The collector deletes the manifests and blobs nothing reaches any more: no tag, index,
        recent tag history or recent push. A dry run counts them and deletes nothing.
      </p>
      <p className="actions">
        <button
          type="button"
          className="primary"
          disabled={action.busy || running}
          onClick={() => start(false)}
        >
          Run now
        </button>{" "}
        <button type="button" disabled={action.busy || running} onClick={() => start(true)}>
          Dry run
        </button>
        {running ? <span className="muted"> A collection is running…</span> : null}
      </p>
      <FormError error={action.error} />
      {runs.data.garbageCollections.length === 0 ? (
        <Empty>No garbage collection has run yet.</Empty>
      ) : (
        <>
          <RunTable runs={runs.data.garbageCollections} />
          <Pager total={Number(runs.data.totalCount)} size={pageSize} label="collections" />
        </>
      )}
    </Frame>
  );
}

function Frame({ children }: { children: ReactNode }) {
  return (
    <section aria-labelledby="gc-title">
      <h1 id="gc-title">Garbage collection</h1>
      {children}
    </section>
  );
}

function RunTable({ runs }: { runs: Run[] }) {
  return (
    <table className="list" aria-label="Garbage collections">
      <thead>
        <tr>
          <th scope="col">Started</th>
          <th scope="col">Trigger</th>
          <th scope="col">Dry run</th>
          <th scope="col">State</th>
          <th scope="col">Manifests</th>
          <th scope="col">Blobs</th>
          <th scope="col">Reclaimed</th>
          <th scope="col">Duration</th>
          <th scope="col">Error</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => (
          <tr key={r.uid}>
            <th scope="row">
              <time dateTime={r.startTime}>{formatTime(r.startTime)}</time>
            </th>
            <td>{r.trigger}</td>
            <td>{r.dryRun ? "yes" : "no"}</td>
            <td>{r.state}</td>
            <td>{r.manifestsDeleted.toString()}</td>
            <td>{r.blobsDeleted.toString()}</td>
            <td>{formatBytes(r.bytesReclaimed)}</td>
            <td>{r.state === "running" ? "…" : `${(Number(r.durationMs) / 1000).toFixed(1)} s`}</td>
            <td className="break">{r.error || "—"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
