import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Ordering } from "../version-scheme.ts";

/**
 * The reference implementations the differential tests ask: each answers a batch in one or a
 * few processes, or says why it is missing so that the test can skip with that reason.
 */
export interface Answer<T> {
  value?: T;
  /** Why the reference is missing; the test skips with this reason. */
  skip?: string;
  /** Why a present reference failed; the test fails with this. */
  failure?: string;
}

type Run = { out: string; failure?: undefined } | { out?: undefined; failure: string };

function run(command: string, args: string[], input: string): Run {
  const result = spawnSync(command, args, { input, encoding: "utf8", maxBuffer: 64 << 20 });
  if (result.error) return { failure: `${command} could not run: ${result.error.message}` };
  if (result.status !== 0) return { failure: `${command} failed: ${result.stderr.slice(0, 300)}` };
  return { out: result.stdout };
}

function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    const path = join(dir, command);
    if (dir && existsSync(path)) return path;
  }
  return undefined;
}

const SIGNS: Record<string, Ordering> = { "<": -1, "=": 0, "==": 0, ">": 1 };

/**
 * The dpkg binary itself, one process per pair: each pair is asked the one question that
 * confirms the expected answer (`lt`, `eq` or `gt`), since a process costs tens of
 * milliseconds here. Gives whether dpkg agreed, pair by pair.
 */
export function dpkgConfirms(pairs: [string, string][], expected: Ordering[]): Answer<boolean[]> {
  if (!onPath("dpkg")) return { skip: "dpkg is not installed" };
  const script =
    'while read -r a op b; do dpkg --compare-versions "$a" "$op" "$b" && echo y || echo n; done';
  const ops = { "-1": "lt", "0": "eq", "1": "gt" };
  const input = pairs.map(([a, b], i) => `${a} ${ops[String(expected[i]) as "0"]} ${b}\n`).join("");
  const result = run("sh", ["-c", script], input);
  if (result.failure !== undefined) return { failure: result.failure };
  return {
    value: result.out
      .trim()
      .split("\n")
      .map((s) => s === "y"),
  };
}

const DPKG_PERL = `
use Dpkg::Version qw(version_compare version_check);
while (my $line = <STDIN>) {
  chomp $line;
  my @texts = split /\t/, $line, -1;
  if (@texts == 1) { my ($ok) = version_check($texts[0]); print $ok ? "valid\n" : "invalid\n"; }
  else { print version_compare($texts[0], $texts[1]), "\n"; }
}
`;

/**
 * dpkg's own Perl module (Dpkg::Version, from libdpkg-perl) in one process: a pair gets -1, 0
 * or 1; a single text gets "valid" or "invalid" by dpkg's strict syntax check.
 */
export function dpkgPerlAnswers(lines: string[][]): Answer<string[]> {
  if (!onPath("perl")) return { skip: "perl is not installed" };
  const result = run("perl", ["-e", DPKG_PERL], lines.map((l) => `${l.join("\t")}\n`).join(""));
  if (result.failure?.includes("Dpkg/Version.pm")) {
    return { skip: "perl has no Dpkg::Version (libdpkg-perl)" };
  }
  if (result.failure !== undefined) return { failure: result.failure };
  return { value: result.out.split("\n").slice(0, lines.length) };
}

const PACKAGING = `
import sys
from packaging.version import Version, InvalidVersion
def parse(t):
    try:
        return Version(t)
    except InvalidVersion:
        return None
for line in sys.stdin.read().split("\\n")[:-1]:
    texts = line.split("\\t")
    vs = [parse(t) for t in texts]
    if len(vs) == 1:
        print("invalid" if vs[0] is None else str(vs[0]))
    elif None in vs:
        print("invalid")
    else:
        print((vs[0] > vs[1]) - (vs[0] < vs[1]))
`;

/**
 * Python's \`packaging\` in one process: a pair gets -1, 0, 1 or "invalid"; a single text gets
 * its normal form or "invalid".
 */
export function packagingAnswers(lines: string[][]): Answer<string[]> {
  if (!onPath("python3")) return { skip: "python3 is not installed" };
  const result = run("python3", ["-c", PACKAGING], lines.map((l) => `${l.join("\t")}\n`).join(""));
  if (result.failure?.includes("No module named"))
    return { skip: "python3 has no packaging module" };
  if (result.failure !== undefined) return { failure: result.failure };
  return { value: result.out.split("\n").slice(0, lines.length) };
}

/** The maven-artifact jar that comes with the installed Maven, found through `mvn`. */
function mavenArtifactJar(): string | undefined {
  const mvn = onPath("mvn");
  if (!mvn) return undefined;
  const lib = join(dirname(dirname(realpathSync(mvn))), "lib");
  if (!existsSync(lib)) return undefined;
  const jar = readdirSync(lib).find((f) => /^maven-artifact.*\.jar$/.test(f));
  return jar && join(lib, jar);
}

/**
 * Maven's own \`ComparableVersion\` (its main prints the order of each neighbouring pair of
 * its arguments), one JVM per batch of pairs.
 */
export function mavenCompare(pairs: [string, string][]): Answer<Ordering[]> {
  if (!onPath("java")) return { skip: "java is not installed" };
  const jar = mavenArtifactJar();
  if (!jar) return { skip: "no maven-artifact jar next to an installed mvn" };
  const main = "org.apache.maven.artifact.versioning.ComparableVersion";
  const results: Ordering[] = [];
  for (let i = 0; i < pairs.length; i += 500) {
    const args = pairs.slice(i, i + 500).flat();
    const result = run("java", ["-cp", jar, main, ...args], "");
    if (result.failure !== undefined) return { failure: result.failure };
    const signs = result.out
      .split("\n")
      .filter((l) => l.startsWith("   "))
      .map((l) => SIGNS[l.trim().split(" ")[1]]);
    for (let k = 0; k < signs.length; k += 2) results.push(signs[k]);
  }
  return { value: results };
}
