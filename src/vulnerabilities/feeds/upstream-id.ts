const CVE = /^CVE-\d{4}-\d{4,}$/;
const GHSA = /^GHSA(-[23456789cfghjmpqrvwx]{4}){3}$/;
const GO = /^GO-\d{4}-\d{4,}$/;

/**
 * True for the alias formats an advisory YAML document allows (formats §1.1): CVE, GHSA or
 * GO ids. GHSA ids share the CGA alphabet, so a mistyped letter is caught here.
 */
export function isUpstreamId(id: string): boolean {
  return CVE.test(id) || GHSA.test(id) || GO.test(id);
}
