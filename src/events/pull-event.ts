import type { NewEvent } from "./new-event.ts";
import { civilTime, type EventRepo, type RegistryClient } from "./registry-events.ts";

/** One manifest GET or HEAD that answered. */
export interface Pull {
  repo: EventRepo;
  repository: string;
  /** The tag pulled by, "" for a pull by digest. */
  tag: string;
  digest: string;
  mediaType: string;
  method: "GET" | "HEAD";
  client: RegistryClient;
}

/**
 * What a pull's event needs, flat and small: buffered per manifest GET and copied to the writer
 * thread, so the request path allocates one object and the event is built where it is written.
 */
export interface PullRecord {
  /** Milliseconds since the epoch, when the pull was answered. */
  at: number;
  repoUid: string;
  rootUid: string;
  repository: string;
  tag: string;
  digest: string;
  mediaType: string;
  method: "GET" | "HEAD";
  /** The identity uid, "" for anonymous pulls. */
  subject: string;
  /** Claims of the token the puller used, when known. */
  act?: Record<string, string>;
  remoteAddress: string;
  userAgent: string;
}

/** The flat record of `pull`, answered now. */
export function pullRecordOf(pull: Pull): PullRecord {
  return {
    at: Date.now(),
    repoUid: pull.repo.uid,
    rootUid: pull.repo.root_uid,
    repository: pull.repository,
    tag: pull.tag,
    digest: pull.digest,
    mediaType: pull.mediaType,
    method: pull.method,
    subject: pull.client.actor.subject,
    ...(pull.client.actor.act && { act: pull.client.actor.act }),
    remoteAddress: pull.client.remoteAddress,
    userAgent: pull.client.userAgent,
  };
}

/** The `dev.lading.registry.pull.v1` event of `pull` (platform.md §7.2's pull body). */
export function pullEventOf(pull: PullRecord, source: string): NewEvent {
  const time = new Date(pull.at).toISOString();
  const body: Record<string, string> = {
    repository: pull.repository,
    repo_id: pull.repoUid,
    digest: pull.digest,
    method: pull.method,
    type: "manifest",
    when: civilTime(time),
    remote_address: pull.remoteAddress,
    user_agent: pull.userAgent,
  };
  if (pull.tag !== "") body.tag = pull.tag;
  return {
    type: "dev.lading.registry.pull.v1",
    source,
    subject: pull.repoUid,
    groupUid: pull.rootUid,
    actor: pull.act ? { subject: pull.subject, act: pull.act } : { subject: pull.subject },
    body,
    extensions: { digest: pull.digest, mediatype: pull.mediaType },
    time,
  };
}
