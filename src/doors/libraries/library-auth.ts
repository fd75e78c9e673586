import type { Kysely } from "kysely";
import {
  type Ecosystem,
  LibraryError,
  publishCapability,
  pullCapability,
} from "../../libraries/index.ts";
import { organisationUid } from "../../registry/registry-access.ts";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import { OciError } from "../oci/oci-error.ts";
import type { RegistryAuth } from "../oci/registry-auth.ts";
import type { LibraryCaller, LibraryRequest } from "./library-context.ts";

/** The realm of the Basic challenge every ecosystem's client answers. */
const challenge = 'Basic realm="Lading libraries"';

/**
 * Authorizes library requests with the registry's credentials: HTTP Basic with `_token` and a
 * Lading token, or a pull token's identity uid and token (the registry's rules). Anonymous
 * callers may only read the public organisation. Registry tokens (`access` claims for
 * images) are refused: they grant nothing here.
 */
export function createLibraryAuth(options: {
  db: Kysely<MetadataSchema>;
  auth: RegistryAuth;
  publicOrg: string;
}) {
  const { db, auth, publicOrg } = options;
  // Names come from the URL before the caller is known: the cache is bounded, and emptied
  // rather than grown past its size.
  const orgUids = new Map<string, { uid: string | undefined; at: number }>();
  const maxCachedNames = 1000;

  async function orgUidOf(name: string): Promise<string | undefined> {
    const cached = orgUids.get(name);
    if (cached && Date.now() - cached.at < 5_000) return cached.uid;
    const uid = await organisationUid(db, name);
    if (orgUids.size >= maxCachedNames) orgUids.clear();
    orgUids.set(name, { uid, at: Date.now() });
    return uid;
  }

  return async function authorize(
    r: LibraryRequest,
    action: "read" | "publish",
  ): Promise<LibraryCaller> {
    const notFound = () =>
      new LibraryError(404, `no ${r.ecosystem} repository for organisation ${r.orgName}`);
    const header = r.req.headers.authorization;
    if (!header) {
      const orgUid =
        action === "read" && r.orgName === publicOrg ? await orgUidOf(r.orgName) : undefined;
      if (orgUid) return { orgUid, actor: { subject: "" } };
      throw unauthorized("authentication required");
    }
    let caller: Awaited<ReturnType<RegistryAuth["identify"]>>;
    try {
      caller = await auth.identify(decodedBasicUser(header));
    } catch (error) {
      if (error instanceof OciError) {
        throw error.status === 401
          ? unauthorized(`${error.message}${renewal(error.message, r.ecosystem)}`)
          : new LibraryError(403, error.message);
      }
      throw error;
    }
    const orgUid = await orgUidOf(r.orgName);
    if (!caller.grants) {
      throw new LibraryError(
        403,
        "registry tokens grant image access only; use a Lading token or a pull token",
      );
    }
    if (!orgUid) throw notFound();
    const capability =
      action === "read" ? pullCapability(r.ecosystem as Ecosystem) : publishCapability(r.ecosystem);
    if (caller.grants.can(capability, orgUid))
      return { orgUid, actor: { subject: caller.subject } };
    if (action === "read" && r.orgName === publicOrg)
      return { orgUid, actor: { subject: caller.subject } };
    // Without read access the organisation's packages do not exist for this caller.
    if (!caller.grants.can(pullCapability(r.ecosystem), orgUid) && r.orgName !== publicOrg) {
      throw notFound();
    }
    throw new LibraryError(403, `${capability} is required in organisation ${r.orgName}`);
  };
}

/**
 * The header with a Basic user name's `%2F` read as `/`. A pull token's user name is its
 * identity uid, `<org uid>/<16 hex>`, and pip takes credentials only inside the index URL,
 * where the `/` has to be percent-encoded (uids never hold a `%`, so nothing else changes).
 */
function decodedBasicUser(header: string): string {
  if (!/^basic /i.test(header)) return header;
  const decoded = Buffer.from(header.slice(6).trim(), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0 || !/%2f/i.test(decoded.slice(0, colon))) return header;
  const user = decoded.slice(0, colon).replace(/%2f/gi, "/");
  return `Basic ${Buffer.from(`${user}${decoded.slice(colon)}`).toString("base64")}`;
}

/** The configure command that writes fresh credentials, for an expired one. */
const configureCommand: Record<Ecosystem, string> = {
  python: "configure-pip",
  javascript: "configure-npm",
  java: "configure-maven",
};

function renewal(message: string, ecosystem: Ecosystem): string {
  if (!/expired/i.test(message)) return "";
  return `; run lading auth ${configureCommand[ecosystem]} for new credentials`;
}

/** A 401 that makes pip, npm and Maven send their configured credentials. */
export class LibraryUnauthorized extends LibraryError {
  readonly challenge = challenge;
}

function unauthorized(message: string): LibraryUnauthorized {
  return new LibraryUnauthorized(401, message);
}
