/**
 * The signature algorithms Lading accepts on tokens it did not sign (upstream id tokens,
 * workload tokens, static-key tokens): asymmetric only, so a verifier never holds a secret and
 * `alg: none` or HMAC confusion cannot arise (reference formats §4.3: pin the algorithms).
 */
export const asymmetricAlgorithms = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];
