import { GO_BUILDINFO_MAGIC } from "./go-buildinfo-sniffer.ts";
import { formatPurl, type LayerPackage, type PackageDatabase } from "./layer-package.ts";

/** Since Go 1.18 the version and module strings follow the header inline (flags bit 1). */
const FLAG_INLINE = 0x02;
const HEADER = 32;

/** Whether kept bytes are a Go build info window (as the sniffer keeps them). */
export function isGoBuildInfoWindow(bytes: Buffer): boolean {
  return bytes.subarray(0, GO_BUILDINFO_MAGIC.length).equals(GO_BUILDINFO_MAGIC);
}

/**
 * Lists the modules a Go binary was built from: its main module (when versioned), every `dep`
 * line (a `=>` replacement by a versioned module stands in its place; one by a local directory
 * has no version to list), and the standard library as `pkg:golang/stdlib@<go version>`, the
 * name OSV's Go advisories give it. Binaries older than Go 1.18 keep these behind pointers
 * into the data segment, which a bounded window cannot follow: they yield an error instead.
 */
export function parseGoBuildInfo(window: Buffer, path: string): PackageDatabase {
  if (window.length < HEADER || !isGoBuildInfoWindow(window)) {
    return { packages: [], errors: [`${path}: Go build info header cut short`] };
  }
  if ((window[15] & FLAG_INLINE) === 0) {
    return { packages: [], errors: [`${path}: Go build info from before Go 1.18 is not read`] };
  }
  const version = readString(window, HEADER);
  const modinfo = version && readString(window, version.next);
  if (!version || !modinfo) {
    return { packages: [], errors: [`${path}: Go build info strings run past what was kept`] };
  }
  const packages: LayerPackage[] = [];
  const errors: string[] = [];
  const add = (name: string, ver: string) => {
    const at = name.lastIndexOf("/");
    const purl = formatPurl({
      type: "golang",
      namespace: at > 0 ? name.slice(0, at) : undefined,
      name: at > 0 ? name.slice(at + 1) : name,
      version: ver,
    });
    if (purl.error !== undefined) errors.push(`${path}: ${purl.error}`);
    else {
      packages.push({
        name,
        version: ver,
        purl: purl.value,
        ecosystem: "Go",
        licence: undefined,
        source: path,
      });
    }
  };
  const goVersion = /^go(\d+(?:\.\d+)*)/.exec(version.text)?.[1];
  if (goVersion) add("stdlib", goVersion);
  for (const module of modules(modinfo.text)) add(module.path, module.version);
  return { packages, errors };
}

/** The versioned modules of a modinfo text, replacements applied. */
function modules(modinfo: string): { path: string; version: string }[] {
  // The linker wraps modinfo in 16-byte sentinels (runtime/debug); Go strips them the same way.
  const text =
    modinfo.length >= 33 && modinfo[modinfo.length - 17] === "\n"
      ? modinfo.slice(16, -16)
      : modinfo;
  const found: { path: string; version: string }[] = [];
  let last: { path: string; version: string } | undefined;
  for (const line of text.split("\n")) {
    const [kind, modPath = "", modVersion = ""] = line.split("\t");
    if (kind === "mod" || kind === "dep") {
      last = { path: modPath, version: modVersion };
      found.push(last);
    } else if (kind === "=>" && last) {
      last.path = modPath;
      last.version = modVersion;
    }
  }
  // `(devel)` is a main module built from a checkout: it names no release to match.
  return found.filter((m) => m.path !== "" && m.version !== "" && m.version !== "(devel)");
}

/** A uvarint-prefixed string at `at`, or undefined when it runs past the window. */
function readString(window: Buffer, at: number): { text: string; next: number } | undefined {
  let length = 0;
  let shift = 0;
  let p = at;
  for (;;) {
    if (p >= window.length || shift > 28) return undefined;
    const byte = window[p++];
    length += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) break;
    shift += 7;
  }
  if (p + length > window.length) return undefined;
  return { text: window.toString("latin1", p, p + length), next: p + length };
}
