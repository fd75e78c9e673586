import { inflateSync } from "node:zlib";
import type { Parsed } from "../../versions/version-scheme.ts";
import { CARGO_AUDIT_TAG } from "./cargo-auditable-sniffer.ts";
import { formatPurl, type LayerPackage, type PackageDatabase } from "./layer-package.ts";

/** The JSON inflated from one binary's audit data, at most (cargo-auditable's own reader allows 8 MiB). */
export const CARGO_AUDIT_MAX_JSON = 8 * 1024 * 1024;
/** Packages read from one binary's audit data. */
export const CARGO_AUDIT_MAX_PACKAGES = 50_000;

interface AuditPackage {
  name: string;
  version: string;
  source: string;
  kind: "build" | "runtime";
  root: boolean;
}

/**
 * Lists the crates a Rust binary built with cargo-auditable was linked from: each package of
 * its JSON (`{"packages": [{name, version, source, kind, dependencies, root}]}`) from
 * crates.io that is a runtime dependency and not the binary's own package, as
 * `pkg:cargo/<name>@<version>`. Build-time dependencies (build scripts, proc-macros) are not
 * in the binary; `local`, `git` and other registries' crates have no crates.io advisories.
 * The data inflates within CARGO_AUDIT_MAX_JSON; anything not in the documented shape
 * (github.com/rust-secure-code/cargo-auditable, cargo-auditable.schema.json) is refused whole.
 */
export function parseCargoAuditable(window: Buffer, path: string): PackageDatabase {
  const fail = (reason: string): PackageDatabase => ({
    packages: [],
    errors: [`${path}: cargo-auditable data ${reason}`],
  });
  let json: unknown;
  try {
    const text = inflateSync(window.subarray(CARGO_AUDIT_TAG.length), {
      maxOutputLength: CARGO_AUDIT_MAX_JSON,
    });
    json = JSON.parse(text.toString("utf8"));
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_BUFFER_TOO_LARGE") {
      return fail(`inflates to more than ${CARGO_AUDIT_MAX_JSON} bytes`);
    }
    if (code === "Z_BUF_ERROR") return fail("runs past the bytes kept");
    return fail(`is not zlib-compressed JSON: ${(error as Error).message}`);
  }
  const read = readPackages(json);
  if (read.error !== undefined) return fail(read.error);
  const packages: LayerPackage[] = [];
  const errors: string[] = [];
  for (const pkg of read.value) {
    if (pkg.root || pkg.kind !== "runtime" || pkg.source !== "crates.io") continue;
    const purl = formatPurl({ type: "cargo", name: pkg.name, version: pkg.version });
    if (purl.error !== undefined) errors.push(`${path}: ${purl.error}`);
    else {
      packages.push({
        name: pkg.name,
        version: pkg.version,
        purl: purl.value,
        ecosystem: "crates.io",
        licence: undefined,
        source: path,
      });
    }
  }
  return { packages, errors };
}

function readPackages(json: unknown): Parsed<AuditPackage[]> {
  if (!isObject(json) || !Array.isArray(json.packages)) return { error: "has no packages list" };
  const list = json.packages as unknown[];
  if (list.length > CARGO_AUDIT_MAX_PACKAGES) {
    return { error: `lists ${list.length} packages, more than ${CARGO_AUDIT_MAX_PACKAGES}` };
  }
  const packages: AuditPackage[] = [];
  for (const [i, raw] of list.entries()) {
    const where = `packages[${i}]`;
    if (!isObject(raw)) return { error: `${where} is not an object` };
    const { name, version, source, kind = "runtime", root = false, dependencies = [] } = raw;
    if (typeof name !== "string" || name === "") return { error: `${where} has no name` };
    if (typeof version !== "string" || version === "") return { error: `${where} has no version` };
    // A source is "crates.io", "git", "local", "registry", or {"Other": "…"}.
    const sourceName =
      typeof source === "string"
        ? source
        : isObject(source) && typeof source.Other === "string"
          ? source.Other
          : undefined;
    if (sourceName === undefined) return { error: `${where} has no source` };
    if (kind !== "build" && kind !== "runtime")
      return { error: `${where} has kind ${JSON.stringify(kind)}` };
    if (typeof root !== "boolean") return { error: `${where}.root is not true or false` };
    // Unused here, but indices outside the list mean the data is not what cargo-auditable
    // writes, so none of it is trusted.
    if (
      !Array.isArray(dependencies) ||
      dependencies.some((d) => !Number.isInteger(d) || d < 0 || d >= list.length)
    ) {
      return { error: `${where}.dependencies are not indices of the packages list` };
    }
    packages.push({ name, version, source: sourceName, kind, root });
  }
  return { value: packages };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
