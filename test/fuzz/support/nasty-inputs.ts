import fc from "fast-check";

/** Strings that break parsers, paths, encodings and databases. */
export const trickyWords = [
  "",
  ".",
  "..",
  "../..",
  "%00",
  "\u0000",
  "%2F",
  "%2e%2e",
  "%2e%2e%2f",
  "%",
  "%zz",
  "%C0%AF",
  "%FF%FE",
  "\ud83d\ude00",
  "\u0130",
  "\u202e",
  "\ufeff",
  "' OR '1'='1",
  "%27%20OR%201%3D1--",
  "null",
  "undefined",
  "true",
  "-1",
  "0x10",
  "1e400",
  "NaN",
  "99999999999999999999",
  "{}",
  "[]",
  "\\",
  "*",
  "**",
  "a/b",
  "_lading",
  "<script>",
  "$" + "{x}",
];

/** A tricky word, a random string of any code points, or a long run. */
export const nastyText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...trickyWords), weight: 4 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 2 },
  { arbitrary: fc.string({ unit: "binary", maxLength: 20 }), weight: 2 },
  { arbitrary: fc.string({ unit: "grapheme", maxLength: 10 }), weight: 1 },
  {
    arbitrary: fc
      .tuple(fc.constantFrom("a", "0", "/", "%", "é", "."), fc.integer({ min: 256, max: 20_000 }))
      .map(([ch, n]) => ch.repeat(n)),
    weight: 1,
  },
);

/** `n` lowercase hex digits. */
export const hex = (n: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: n, maxLength: n });

/** Uid-shaped text: roots, children, near misses (length, case, separators). */
export function uidLike(known: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...known), weight: 3 },
    { arbitrary: hex(40), weight: 2 },
    {
      arbitrary: fc.tuple(fc.constantFrom(...known), hex(16)).map(([p, c]) => `${p}/${c}`),
      weight: 2,
    },
    { arbitrary: fc.constantFrom(...known).map((u) => u.toUpperCase()), weight: 1 },
    { arbitrary: fc.constantFrom(...known).map((u) => `${u}/`), weight: 1 },
    { arbitrary: fc.constantFrom(...known).map((u) => u.slice(0, -1)), weight: 1 },
    { arbitrary: fc.integer({ min: 0, max: 200 }).chain(hex), weight: 1 },
  );
}

/**
 * A path segment as it goes on the wire: mostly percent-encoded, sometimes raw (spaces and
 * non-ASCII included, which Node's parser may refuse before any door sees them).
 */
export function pathText(known: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: uidLike(known), weight: 4 },
    { arbitrary: nastyText.map(encodeURIComponent), weight: 3 },
    { arbitrary: nastyText, weight: 1 },
    {
      arbitrary: fc.constantFrom("..", "../..", "%2e%2e/%2e%2e", "a%2Fb", "a//b", "%00", "%"),
      weight: 2,
    },
  );
}

/** Who calls: the owner's token, none, or credentials that must be refused. */
export type AuthKind =
  | "owner"
  | "none"
  | "owner-lowercase-scheme"
  | "owner-no-scheme"
  | "owner-tampered"
  | "other-audience"
  | { header: string };

/** Garbage credentials: wrong schemes, unsigned and malformed JWTs, huge values. */
export const authKind: fc.Arbitrary<AuthKind> = fc.oneof(
  { arbitrary: fc.constant<AuthKind>("owner"), weight: 6 },
  { arbitrary: fc.constant<AuthKind>("none"), weight: 2 },
  {
    arbitrary: fc.constantFrom<AuthKind>(
      "owner-lowercase-scheme",
      "owner-no-scheme",
      "owner-tampered",
      "other-audience",
    ),
    weight: 2,
  },
  {
    arbitrary: fc
      .oneof(
        fc.constantFrom(
          "Bearer",
          "Bearer ",
          "Bearer a.b.c",
          "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.",
          "Bearer eyJhbGciOiJIUzI1NiJ9.e30.AAAA",
          "Basic Og==",
          "Basic %%%",
          "Basic X3Rva2VuOmdhcmJhZ2U=",
          "Digest username=x",
          "Bearer \u00ff\u00fe",
        ),
        fc.string({ unit: "grapheme-ascii", maxLength: 60 }).map((s) => `Bearer ${s}`),
        fc.base64String({ maxLength: 80 }).map((s) => `Basic ${s}`),
        fc.integer({ min: 1000, max: 12_000 }).map((n) => `Bearer ${"A".repeat(n)}`),
      )
      .map((header) => ({ header })),
    weight: 3,
  },
);

/** The tokens an AuthKind refers to. */
export interface Credentials {
  owner: string;
  /** A valid token of the owner for the other listener's audience. */
  otherAudience: string;
}

/** The Authorization header of `kind`, or undefined for none. */
export function authHeader(kind: AuthKind, credentials: Credentials): string | undefined {
  if (typeof kind === "object") return kind.header;
  const { owner } = credentials;
  switch (kind) {
    case "owner":
      return `Bearer ${owner}`;
    case "none":
      return undefined;
    case "owner-lowercase-scheme":
      return `bearer ${owner}`;
    case "owner-no-scheme":
      return owner;
    case "owner-tampered":
      return `Bearer ${owner.slice(0, -4)}${owner.endsWith("AAAA") ? "BBBB" : "AAAA"}`;
    case "other-audience":
      return `Bearer ${credentials.otherAudience}`;
  }
}

/**
 * `target` cut to 12,000 characters. Node refuses a request head over 16 KiB before any door
 * sees it (slow-requests.test.ts covers that); staying below lets the doors see long values.
 */
export const fitHead = (target: string) =>
  target.length > 12_000 ? target.slice(0, 12_000) : target;

/** A header value safe to put on the wire (no CR/LF, which would end the header). */
export const headerValue = (s: string) => s.replace(/[\r\n]/g, " ");
