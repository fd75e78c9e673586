/** A distribution's purl namespace and OSV ecosystem. */
export interface DistroNamespace {
  namespace: string;
  ecosystem: string;
}

const APK: Readonly<Record<string, string>> = {
  alpine: "Alpine",
  wolfi: "Wolfi",
  chainguard: "Chainguard",
};

const DEB: Readonly<Record<string, string>> = {
  debian: "Debian",
  ubuntu: "Ubuntu",
};

/** Distributions whose packages apk records. */
export const APK_FAMILY: readonly string[] = ["alpine", "wolfi", "chainguard"];

/** Distributions whose packages dpkg records. */
export const DEB_FAMILY: readonly string[] = ["debian", "ubuntu"];

/**
 * Where an apk package's advisories live: the os-release ID when it is an apk distribution
 * Lading has advisories for, otherwise Alpine, whose database format every apk image shares.
 */
export function apkNamespace(distroId: string | undefined): DistroNamespace {
  return pick(APK, distroId, "alpine");
}

/** As `apkNamespace`, for dpkg: Debian or Ubuntu, otherwise Debian. */
export function debNamespace(distroId: string | undefined): DistroNamespace {
  return pick(DEB, distroId, "debian");
}

function pick(
  table: Readonly<Record<string, string>>,
  id: string | undefined,
  fallback: string,
): DistroNamespace {
  const namespace = id !== undefined && Object.hasOwn(table, id) ? id : fallback;
  return { namespace, ecosystem: table[namespace] };
}
