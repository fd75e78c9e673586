/**
 * What the registry tells the scan queue about a manifest once its push has committed. The OCI
 * door declares the same shape on its side (it may not import this domain); the app passes one
 * to the other.
 */
export interface PushedManifest {
  repoUid: string;
  digest: string;
  mediaType: string;
  /** `artifactType`, else the config media type, else "". */
  artifactType: string;
  /** The config descriptor's media type; "" for an index. */
  configMediaType: string;
  /** The layer descriptors' media types, in order; none for an index. */
  layerMediaTypes: readonly string[];
  /** The digest `subject` names, or null. */
  subjectDigest: string | null;
  /** An index's entries; none for an image manifest. */
  childDigests: readonly string[];
  /** The tags the push set; none for a push by digest without `tag` parameters. */
  tags: readonly string[];
}
