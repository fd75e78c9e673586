import type { ReactNode } from "react";
import { type Org, useOrg } from "../api/orgs.ts";
import { Empty, ErrorBox, Loading } from "./status.tsx";

/** Renders `children(org)` for the organisation of the address, or says why it cannot. */
export function RequireOrg({ children }: { children: (org: Org) => ReactNode }) {
  const { org, name, isPending, error } = useOrg();
  if (isPending) return <Loading what="Loading organisations" />;
  if (error) return <ErrorBox error={error} />;
  if (!org) return <Empty>There is no organisation “{name}” that you can see.</Empty>;
  return <>{children(org)}</>;
}
