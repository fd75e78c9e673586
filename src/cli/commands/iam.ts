import type { GroupNode } from "../command-spec.ts";
import { resourceCommands } from "../resources/crud.ts";
import { accountAssociations, groupMappings, identityProviders } from "../resources/federation.ts";
import { groups, roleBindings, roles } from "../resources/iam-basic.ts";
import { identities } from "../resources/identities.ts";
import { invites, terms } from "../resources/invites.ts";

/** `lading iam …`. */
export const iamCommands: GroupNode = {
  kind: "group",
  name: "iam",
  summary: "Groups, identities, roles, bindings, identity providers, invites and terms",
  children: [
    resourceCommands(groups),
    resourceCommands(identities),
    resourceCommands(roles),
    resourceCommands(roleBindings),
    resourceCommands(identityProviders),
    resourceCommands(groupMappings),
    resourceCommands(invites),
    resourceCommands(accountAssociations),
    terms,
  ],
};
