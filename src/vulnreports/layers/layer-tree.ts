import { ancestorsOf } from "./layer-path.ts";

/** A wanted file as the merged layers leave it: its bytes, or why they were not kept. */
export type KeptFile =
  | { bytes: Buffer; skipped?: undefined }
  | { bytes?: undefined; skipped: string };

/**
 * The wanted files of an image as its layers are applied bottom to top. Only wanted files are
 * held, so deletions are recorded only when they touch something held: a layer with a million
 * entries costs nothing here unless it shadows a wanted file.
 *
 * Within a layer, whiteouts and replacements affect only the lower layers (OCI image-spec),
 * so a layer's own files are staged and merged after its deletions in `endLayer`.
 */
export class LayerTree {
  readonly #files = new Map<string, KeptFile>();
  #staged = new Map<string, KeptFile>();
  /** Directories holding a lower wanted file (`""` the root), to tell cheaply if a delete hits. */
  #lowerDirs = new Set<string>();
  #deleteTrees = new Set<string>();
  #deleteFiles = new Set<string>();
  #opaqueDirs = new Set<string>();
  #bytes = 0;
  /** Staged paths not held lower, so `size` stays O(1) for a walker asking per entry. */
  #stagedNew = 0;

  /** The bytes held, lower and staged, counting a file replaced in this layer twice. */
  get bytesHeld(): number {
    return this.#bytes;
  }

  /** The number of paths held, lower and staged, a path in both counted once. */
  get size(): number {
    return this.#files.size + this.#stagedNew;
  }

  /** Whether `path` is already held (so replacing it does not grow the tree). */
  holds(path: string): boolean {
    return this.#files.has(path) || this.#staged.has(path);
  }

  /** Starts a layer: what is held now is "lower" until `endLayer`. */
  beginLayer(): void {
    this.#staged = new Map();
    this.#stagedNew = 0;
    this.#deleteTrees.clear();
    this.#deleteFiles.clear();
    this.#opaqueDirs.clear();
    this.#lowerDirs = new Set();
    for (const path of this.#files.keys()) {
      for (const dir of ancestorsOf(path)) {
        if (this.#lowerDirs.has(dir)) break;
        this.#lowerDirs.add(dir);
      }
    }
  }

  /** A `.wh.` whiteout, or any non-directory entry: lower `path` and its subtree go. */
  deleteTree(path: string): void {
    if (this.#files.has(path) || this.#lowerDirs.has(path)) this.#deleteTrees.add(path);
  }

  /** A directory entry: a lower file at `path` goes, what lies under it stays. */
  deleteFile(path: string): void {
    if (this.#files.has(path)) this.#deleteFiles.add(path);
  }

  /** A `.wh..wh..opq` marker: everything lower under `dir` goes. */
  opaque(dir: string): void {
    if (this.#lowerDirs.has(dir)) this.#opaqueDirs.add(dir);
  }

  /** A wanted file of this layer; a later entry for the same path in one layer wins. */
  put(path: string, file: KeptFile): void {
    const previous = this.#staged.get(path);
    if (previous === undefined && !this.#files.has(path)) this.#stagedNew++;
    if (previous?.bytes) this.#bytes -= previous.bytes.length;
    if (file.bytes) this.#bytes += file.bytes.length;
    this.#staged.set(path, file);
  }

  /** Applies the layer's deletions to the lower files, then lays its own files on top. */
  endLayer(): void {
    if (this.#deleteTrees.size + this.#deleteFiles.size + this.#opaqueDirs.size > 0) {
      for (const path of [...this.#files.keys()]) {
        if (this.#deleted(path)) this.#drop(path);
      }
    }
    for (const [path, file] of this.#staged) {
      this.#drop(path);
      this.#files.set(path, file);
    }
    this.#staged = new Map();
    this.#stagedNew = 0;
  }

  /** The files held after the last `endLayer`, by path. */
  files(): ReadonlyMap<string, KeptFile> {
    return this.#files;
  }

  #deleted(path: string): boolean {
    if (this.#deleteFiles.has(path) || this.#deleteTrees.has(path)) return true;
    for (const dir of ancestorsOf(path)) {
      if (this.#deleteTrees.has(dir) || this.#opaqueDirs.has(dir)) return true;
    }
    return false;
  }

  #drop(path: string): void {
    const file = this.#files.get(path);
    if (file === undefined) return;
    if (file.bytes) this.#bytes -= file.bytes.length;
    this.#files.delete(path);
  }
}
