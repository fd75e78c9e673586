/** A token as Lading mints them (a JWT): base64url parts joined by dots. */
const tokenShape = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+){0,4}$/;
/** Longest token taken from a fragment. */
export const maxFragmentTokenLength = 8192;

/** What {@link takeTokenFragment} found. */
export interface TokenFragment {
  /** The token, when the fragment carried a well-formed one. */
  token?: string;
  /** Why a `token` parameter was refused, in words. */
  error?: string;
  /** The fragment without its `token` parameter ("" or `#…`), to put back in the address bar. */
  hash: string;
}

/**
 * Reads a development sign-in link `…#token=<API token>` (docs/console.md). The fragment is never
 * sent to the server; the caller replaces the address bar's fragment with `hash` at once, so the
 * token does not stay in the history, a bookmark or a screenshot. Other fragment parameters are
 * kept in their order.
 */
export function takeTokenFragment(fragment: string): TokenFragment {
  const text = fragment.startsWith("#") ? fragment.slice(1) : fragment;
  if (!/(^|&)token=/.test(text)) return { hash: fragment === "#" ? "" : fragment };
  const params = new URLSearchParams(text);
  const values = params.getAll("token");
  params.delete("token");
  const rest = params.toString();
  const hash = rest ? `#${rest}` : "";
  if (values.length !== 1) return { hash, error: "the link carries more than one token" };
  const token = values[0];
  if (token.length === 0) return { hash, error: "the link's token is empty" };
  if (token.length > maxFragmentTokenLength || !tokenShape.test(token)) {
    return { hash, error: "the link's token is not a Lading token" };
  }
  return { token, hash };
}
