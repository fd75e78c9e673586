import { type ApiClient, CliError, type Json } from "../api-client.ts";
import { UsageError } from "../cli-context.ts";
import { resolveRepo } from "../names.ts";

/** An image reference `<org>/<repo>@<digest>` or `<org>/<repo>:<tag>`. */
export interface ImageRef {
  /** `<org>/<repo>`. */
  name: string;
  digest?: string;
  tag?: string;
}

/** Splits an image reference; a usage error names what is wrong. */
export function parseImageRef(text: string): ImageRef {
  const at = text.indexOf("@");
  if (at > 0) {
    const name = text.slice(0, at);
    const digest = text.slice(at + 1);
    if (name.includes("/") && /^sha(256|512):[0-9a-f]+$/.test(digest)) return { name, digest };
  } else {
    const colon = text.lastIndexOf(":");
    const name = text.slice(0, colon);
    if (colon > text.lastIndexOf("/") && name.includes("/") && colon < text.length - 1) {
      return { name, tag: text.slice(colon + 1) };
    }
  }
  throw new UsageError(
    `expected <org>/<image>@sha256:<digest> or <org>/<image>:<tag>, got "${text}"`,
  );
}

/** The repo uid and manifest digest of a reference, a tag read through the Tags API. */
export async function resolveImageRef(
  api: ApiClient,
  ref: ImageRef,
  repoUid?: string,
): Promise<{ repoUid: string; digest: string }> {
  const repo = repoUid ?? (await resolveRepo(api, ref.name));
  if (ref.digest) return { repoUid: repo, digest: ref.digest };
  const tags = ((await api.get("/registry/v2/tags", { "uidp.children_of": repo, name: ref.tag }))
    .tags ?? []) as Json[];
  const tag = tags.find((t) => t.name === ref.tag);
  if (!tag) throw new CliError([`lading: no tag ${ref.name}:${ref.tag}`]);
  return { repoUid: repo, digest: String(tag.digest) };
}
