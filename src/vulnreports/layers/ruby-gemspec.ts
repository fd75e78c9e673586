import { formatPurl, type PackageDatabase } from "./layer-package.ts";

/**
 * An installed gem's specification as RubyGems writes it on install:
 * `<gem home>/specifications/<name>-<version>.gemspec`, and `specifications/default/` for the
 * gems that ship with Ruby itself (Debian also keeps them under rubygems-integration).
 */
const SPEC_PATH = /(?:^|\/)specifications\/(?:default\/)?[^/]+\.gemspec$/;

/** Whether a path is an installed gem's specification. */
export function isRubyGemspecPath(path: string): boolean {
  return SPEC_PATH.test(path);
}

/** `  s.name = "rake".freeze`: a string assignment on its own line, as RubyGems writes it. */
const ASSIGNMENT = /^\s*s\.(name|version|license|licenses) = (.*)$/;
const STRING = /"((?:[^"\\]|\\.)*)"(?:\.freeze)?/g;

/**
 * Reads the Ruby RubyGems generated (`Gem::Specification#to_ruby`), without running it: only
 * the `s.name`, `s.version` and `s.license(s)` lines are read, one line at a time. A gemspec
 * written by hand in another shape is not understood and says so.
 */
export function parseRubyGemspec(text: string, path: string): PackageDatabase {
  const fields = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    const match = ASSIGNMENT.exec(line);
    if (match === null || fields.has(match[1])) continue;
    fields.set(
      match[1],
      [...match[2].matchAll(STRING)].map((m) => m[1]),
    );
  }
  const name = fields.get("name")?.[0];
  const version = fields.get("version")?.[0];
  if (!name || !version) {
    return { packages: [], errors: [`${path}: no s.${name ? "version" : "name"} string`] };
  }
  const purl = formatPurl({ type: "gem", name, version });
  if (purl.error !== undefined) return { packages: [], errors: [`${path}: ${purl.error}`] };
  // Several licences mean the user may pick one (RubyGems' guide): an SPDX OR.
  const licences = fields.get("licenses") ?? fields.get("license") ?? [];
  return {
    packages: [
      {
        name,
        version,
        purl: purl.value,
        ecosystem: "RubyGems",
        licence: licences.length > 0 ? licences.join(" OR ") : undefined,
        source: path,
      },
    ],
    errors: [],
  };
}
