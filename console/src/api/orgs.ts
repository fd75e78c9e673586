import { useQuery } from "@connectrpc/connect-query";
import { GroupsService } from "@gen/lading/iam/v2/groups_pb.js";
import { useParams } from "react-router";

/** An organisation the caller can see: a root group, or the top of what it sees in one. */
export interface Org {
  uid: string;
  name: string;
}

/** The organisations the caller can see (the org switcher's entries), by name. */
export function useOrgs() {
  const groups = useQuery(GroupsService.method.listGroups, { pageSize: 200, orderBy: "name" });
  const all = groups.data?.groups ?? [];
  const uids = new Set(all.map((g) => g.uid));
  // A group whose parent the caller cannot see is the top of what it sees there.
  const tops = all.filter((g) => {
    const slash = g.uid.lastIndexOf("/");
    return slash < 0 || !uids.has(g.uid.slice(0, slash));
  });
  const orgs: Org[] = tops.map((g) => ({ uid: g.uid, name: g.name }));
  return { orgs, isPending: groups.isPending, error: groups.error };
}

/** The organisation named in the address (`/orgs/:org/…`), once the groups are loaded. */
export function useOrg(): { org?: Org; name: string; isPending: boolean; error: unknown } {
  const { org: name = "" } = useParams();
  const { orgs, isPending, error } = useOrgs();
  return { org: orgs.find((o) => o.name === name), name, isPending, error };
}
