/** Table shapes of library repositories (migration 0008). */

/** A package of one ecosystem in one organisation: a Python project, an npm package, a Maven artifact. */
export interface LibraryArtifactsTable {
  /** `<ecosystem>:<organisation uid>:<name>`, `/` of scoped npm names written `~` (one path segment). */
  uid: string;
  /** The organisation (root group) the package belongs to. */
  parent_uid: string;
  /** `python`, `javascript` or `java`. */
  ecosystem: string;
  /** The canonical name: PEP 503-normalised, the npm name, or `groupId:artifactId`. */
  name: string;
  /** The name as first published (PEP 503 keeps the author's spelling for display). */
  display_name: string;
  /** The description of the latest version. */
  description: string;
  /** The highest version in the ecosystem's order ("" until a version is published). */
  latest_version: string;
  version_count: number;
  /** JSON object: npm dist-tags (tag → version); `{}` for other ecosystems. */
  dist_tags: string;
  /** First publish. */
  create_time: string;
  /** Latest publish. */
  update_time: string;
}

/** One published version of an artifact. */
export interface LibraryVersionsTable {
  /** `<artifact uid>@<version>`. */
  uid: string;
  artifact_uid: string;
  /** As published (npm and Maven exact text; Python the PEP 440-normalised form). */
  version: string;
  /** Position in the ecosystem's version order among the artifact's versions, 0 the lowest. */
  version_rank: number;
  description: string;
  /** Bytes of all the version's files. */
  size_bytes: number | string;
  /** JSON object of ecosystem fields (requires-python, the npm version manifest, packaging). */
  metadata: string;
  /**
   * npm deprecation: null until one is set (the manifest's own `deprecated`, if any, stands),
   * "" once lifted, else the message.
   */
  deprecated?: string | null;
  create_time: string;
  update_time: string;
}

/** One file of a version, its bytes in the blob store under `digest`. */
export interface LibraryFilesTable {
  artifact_uid: string;
  version_uid: string;
  /** The file name clients ask for: one path segment, validated at the door. */
  filename: string;
  /** `sha256:<hex>`: the blob. */
  digest: string;
  size: number | string;
  /** Hex digests clients verify with (pip hashes, Maven checksum files, npm integrity). */
  sha1: string;
  md5: string;
  sha512: string;
  content_type: string;
  /** JSON object of per-file fields (Python requires-python, packagetype). */
  metadata: string;
  create_time: string;
}
