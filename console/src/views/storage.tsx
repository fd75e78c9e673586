import type { Org } from "../api/orgs.ts";
import { Empty } from "../components/status.tsx";

/**
 * Storage usage and garbage collection runs. The API has neither yet (the registry lifecycle
 * work adds them, DESIGN §8b): this page is where their lists go, beside the other views.
 */
export function Storage({ org }: { org: Org }) {
  return (
    <section aria-labelledby="storage-title">
      <h1 id="storage-title">Storage of {org.name}</h1>
      <Empty>
        Storage usage and garbage collection runs are not in Lading's API yet; they will show here
        once the registry lifecycle work lands.
      </Empty>
    </section>
  );
}
