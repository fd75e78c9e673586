/**
 * The registry's host as the server wrote it in index.html (`<meta name="lading-registry">`),
 * for pinned references; the page's host when the server did not say.
 */
export function registryHost(): string {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="lading-registry"]');
  return meta?.content || location.host;
}
