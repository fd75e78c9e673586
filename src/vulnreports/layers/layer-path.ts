/**
 * A tar entry name as an image path: no `./` or leading `/`, no empty or `.` segments, no
 * trailing `/`. Returns undefined for the root itself and for any name with a `..` segment:
 * such an entry could only be an attempt to reach outside the image, so it is not applied.
 */
export function normaliseLayerPath(name: string): string | undefined {
  const segments: string[] = [];
  for (const segment of name.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") return undefined;
    segments.push(segment);
  }
  return segments.length > 0 ? segments.join("/") : undefined;
}

/** What an entry does to the lower layers, by its name alone. */
export type LayerEntryKind =
  | { kind: "path"; path: string }
  /** `.wh.<name>`: `path` and everything under it are deleted from lower layers. */
  | { kind: "whiteout"; path: string }
  /** `.wh..wh..opq`: everything under `dir` is deleted from lower layers. */
  | { kind: "opaque"; dir: string }
  /** Other `.wh..wh.` names are reserved by the OCI spec (aufs hard-link bookkeeping). */
  | { kind: "reserved" };

const WHITEOUT = ".wh.";
const OPAQUE = ".wh..wh..opq";

/** Classifies a normalised path per the OCI image-spec whiteout rules. */
export function layerEntryKind(path: string): LayerEntryKind {
  const slash = path.lastIndexOf("/");
  const base = path.slice(slash + 1);
  if (!base.startsWith(WHITEOUT)) return { kind: "path", path };
  const dir = slash >= 0 ? path.slice(0, slash) : "";
  if (base === OPAQUE) return { kind: "opaque", dir };
  if (base.startsWith(`${WHITEOUT}${WHITEOUT}`)) return { kind: "reserved" };
  const name = base.slice(WHITEOUT.length);
  if (name === "") return { kind: "reserved" };
  return { kind: "whiteout", path: dir === "" ? name : `${dir}/${name}` };
}

/** The directories above a path, nearest first (`a/b/c` → `a/b`, `a`, then `` the root). */
export function* ancestorsOf(path: string): Generator<string> {
  let end = path.lastIndexOf("/");
  while (end > 0) {
    yield path.slice(0, end);
    end = path.lastIndexOf("/", end - 1);
  }
  yield "";
}
