import { createApiClient, type Json } from "../api-client.ts";
import { UsageError } from "../cli-context.ts";
import type { VerbNode } from "../command-spec.ts";
import { parseImageRef, resolveImageRef } from "./image-refs.ts";

/** `lading images diff <ref> <ref>`. */
export const diff: VerbNode = {
  kind: "verb",
  name: "diff",
  summary:
    "Compare two images of a repository: packages, vulnerabilities and size per architecture",
  args: "<org>/<image>@<digest>|<org>/<image>:<tag> (twice: from, to)",
  minArgs: 2,
  maxArgs: 2,
  flags: [],
  examples: [
    "lading images diff acme/app@sha256:… acme/app:latest",
    "lading images diff acme/app:v1 acme/app:v2 -o json",
  ],
  async run(ctx, parsed) {
    const [from, to] = parsed.args.map(parseImageRef);
    if (from.name !== to.name) {
      throw new UsageError(
        `both images must be of one repository, got ${from.name} and ${to.name}`,
      );
    }
    const api = createApiClient(ctx);
    const a = await resolveImageRef(api, from);
    const b = await resolveImageRef(api, to, a.repoUid);
    const answer = await api.get("/registry/v2/images:diff", {
      repo: a.repoUid,
      from: a.digest,
      to: b.digest,
    });
    if (ctx.output === "json") ctx.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
    else ctx.stdout.write(renderDiff(answer));
    return 0;
  },
};

/** The diff as text: one block per architecture. */
export function renderDiff(answer: Json): string {
  const lines: string[] = [];
  for (const arch of (answer.architectures ?? []) as Json[]) {
    const from = arch.from as Json;
    const to = arch.to as Json;
    lines.push(`${arch.architecture}`);
    lines.push(`  size ${signed(Number(arch.sizeChange))} bytes (${from.size} → ${to.size})`);
    if (!arch.complete) {
      lines.push(`  not compared: from ${from.scanState}, to ${to.scanState}`);
      continue;
    }
    const added = arch.added as Json[];
    const removed = arch.removed as Json[];
    const changed = arch.changed as Json[];
    lines.push(`  packages +${added.length} -${removed.length} ~${changed.length}`);
    for (const p of added) lines.push(`  + ${p.name} ${p.toVersion}`);
    for (const p of removed) lines.push(`  - ${p.name} ${p.fromVersion}`);
    for (const p of changed) lines.push(`  ~ ${p.name} ${p.fromVersion} → ${p.toVersion}`);
    for (const v of arch.fixed as Json[]) lines.push(`  fixed ${v.id} ${v.severity}`);
    for (const v of arch.introduced as Json[]) lines.push(`  introduced ${v.id} ${v.severity}`);
  }
  return lines.map((l) => `${l}\n`).join("");
}

/**
 * One line for a diff, over every architecture (a package or CVE counted once however many
 * architectures share it): "+2 packages, 3 CVEs fixed, 1 new HIGH".
 */
export function summariseDiff(answer: Json): string {
  const added = new Set<string>();
  const removed = new Set<string>();
  const changed = new Set<string>();
  const fixed = new Set<string>();
  const introduced = new Map<string, string>();
  const incomplete: string[] = [];
  for (const arch of (answer.architectures ?? []) as Json[]) {
    if (!arch.complete) {
      incomplete.push(`${arch.architecture} (${scanStates(arch)})`);
      continue;
    }
    const key = (p: Json) => `${p.ecosystem}:${p.name}:${p.fromVersion}:${p.toVersion}`;
    for (const p of arch.added as Json[]) added.add(key(p));
    for (const p of arch.removed as Json[]) removed.add(key(p));
    for (const p of arch.changed as Json[]) changed.add(key(p));
    for (const v of arch.fixed as Json[]) fixed.add(String(v.id));
    for (const v of arch.introduced as Json[]) introduced.set(String(v.id), String(v.severity));
  }
  const parts: string[] = [];
  if (added.size) parts.push(`+${plural(added.size, "package")}`);
  if (removed.size) parts.push(`-${plural(removed.size, "package")}`);
  if (changed.size) parts.push(`~${plural(changed.size, "package")} changed`);
  if (fixed.size) parts.push(`${plural(fixed.size, "CVE")} fixed`);
  for (const severity of ["CRITICAL", "HIGH", "MEDIUM", "LOW", "NEGLIGIBLE", "UNKNOWN"]) {
    const count = [...introduced.values()].filter((s) => s === severity).length;
    if (count) parts.push(`${count} new ${severity}`);
  }
  if (incomplete.length) parts.push(`not compared: ${incomplete.join(", ")}`);
  return parts.length ? parts.join(", ") : "no changes";
}

function scanStates(arch: Json): string {
  const from = (arch.from as Json).scanState;
  const to = (arch.to as Json).scanState;
  return from === to ? String(from) : `${from} → ${to}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : String(n);
}
