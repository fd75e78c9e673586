import { bigDpkgImage, bigSpdxReferrer } from "./big-scan-inputs.ts";
import { probeHealth } from "./loop-probe.ts";
import type { BuiltImage } from "./oci-layout.ts";
import { waitFor } from "./scan-images.ts";
import type { ServerProcess } from "./server-process.ts";

export const DPKG_PACKAGES = 170_000;
export const SPDX_PACKAGES = 199_000;
const SCAN_MS = 280_000;

/** What one workload did to the server. */
export interface PressureReading {
  workload: string;
  requests: number;
  worstMs: number;
  p99Ms: number;
  /** The server process's highest RSS while the workload ran, bytes. */
  peakRss: number;
}

/**
 * The REST and registry calls of the scan-pressure workloads (issue 21.5) against a server in
 * a process of its own, as a tenant would make them: pushes over the registry API, and the
 * report and packages APIs to see scans finish.
 */
export function scanPressure(s: ServerProcess) {
  const api = async (path: string) => {
    const res = await fetch(`${s.apiUrl}${path}`, {
      headers: { authorization: `Bearer ${s.apiToken}` },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  // The digests come with the image, so nothing is hashed while the server is measured.
  const push = async (name: string, image: BuiltImage) => {
    const auth = { authorization: `Bearer ${s.registryToken}` };
    for (const [digest, bytes] of image.blobs) {
      const res = await fetch(`${s.registryUrl}/v2/${name}/blobs/uploads/?digest=${digest}`, {
        method: "POST",
        body: new Uint8Array(bytes),
        headers: { ...auth, "content-type": "application/octet-stream" },
      });
      if (res.status !== 201) throw new Error(`blob push: ${res.status} ${await res.text()}`);
    }
    const res = await fetch(`${s.registryUrl}/v2/${name}/manifests/${image.descriptor.digest}`, {
      method: "PUT",
      body: new Uint8Array(image.manifest),
      headers: { ...auth, "content-type": "application/vnd.oci.image.manifest.v1+json" },
    });
    if (res.status !== 201) throw new Error(`manifest push: ${res.status} ${await res.text()}`);
    return image.descriptor.digest;
  };
  const repoUid = async (name: string) => {
    const { body } = await api(`/registry/v2/repos?name=${name.slice(name.indexOf("/") + 1)}`);
    return (body.repos as { uid: string }[])[0].uid;
  };
  /** Waits for the image's report of generation `generation` or later. */
  const reported = async (name: string, digest: string, generation = 1) => {
    const repo = encodeURIComponent(await repoUid(name));
    await waitFor(
      `${digest} reported`,
      async () => {
        const { status, body } = await api(
          `/registry/v1/repos/${repo}/digests/${digest}/vulnreport`,
        );
        return status === 200 && Number(body.reportGeneration) >= generation ? true : undefined;
      },
      SCAN_MS,
    );
  };
  /** Pushes `image`, waits for its first report, then pushes its SBOM and waits again. */
  const pushWithSbom = async (name: string, image: BuiltImage, referrer: BuiltImage) => {
    const digest = await push(name, image);
    await reported(name, digest);
    await push(name, referrer);
    await reported(name, digest, 2);
    return digest;
  };
  /** Runs `work` while /healthz is probed from another process and the RSS sampled. */
  const measured = async (workload: string, work: () => Promise<void>) => {
    let peakRss = s.rss();
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, s.rss());
    }, 100);
    const probe = probeHealth(`${s.apiUrl}/healthz`);
    try {
      await work();
    } finally {
      clearInterval(sampler);
    }
    return { workload, ...(await probe.stop()), peakRss };
  };

  return {
    /** The image's scan as the packages API shows it (read it after measuring: it is heavy). */
    async scanOf(name: string, digest: string) {
      const repo = encodeURIComponent(await repoUid(name));
      const { body } = await api(`/registry/v2/images:packages?repo=${repo}&digest=${digest}`);
      const [platform] = body.architectures as {
        image: { scanState: string; reason: string };
        totalCount: number;
      }[];
      return {
        state: platform.image.scanState,
        reason: platform.image.reason,
        packages: platform.totalCount,
      };
    },
    /** A layer holding a dpkg status of 170,000 packages, pushed and scanned. */
    async dpkgLayer(marker: string): Promise<PressureReading & { digest: string; name: string }> {
      const name = `acme/dpkg-${marker}`;
      const image = await bigDpkgImage(DPKG_PACKAGES, marker);
      const reading = await measured("170,000-package dpkg layer", async () => {
        await reported(name, await push(name, image));
      });
      return { ...reading, name, digest: image.descriptor.digest };
    },
    /** A small image and its 199,000-package SPDX referrer, pushed and scanned. */
    async spdxReferrer(
      marker: string,
    ): Promise<PressureReading & { digest: string; name: string }> {
      const name = `acme/spdx-${marker}`;
      const { image, referrer } = await bigSpdxReferrer(SPDX_PACKAGES, marker);
      const reading = await measured("199,000-package SPDX referrer", async () => {
        await pushWithSbom(name, image, referrer);
      });
      return { ...reading, name, digest: image.descriptor.digest };
    },
    /** Both at once. */
    async both(marker: string) {
      const dpkg = await bigDpkgImage(DPKG_PACKAGES, `${marker}-dpkg`);
      const { image, referrer } = await bigSpdxReferrer(SPDX_PACKAGES, `${marker}-spdx`);
      const names = { dpkg: `acme/both-dpkg-${marker}`, spdx: `acme/both-spdx-${marker}` };
      const reading = await measured("both at once", async () => {
        await Promise.all([
          push(names.dpkg, dpkg).then((d) => reported(names.dpkg, d)),
          pushWithSbom(names.spdx, image, referrer),
        ]);
      });
      return {
        ...reading,
        dpkg: { name: names.dpkg, digest: dpkg.descriptor.digest },
        spdx: { name: names.spdx, digest: image.descriptor.digest },
      };
    },
    /** Waits up to `ms` for the server's RSS to fall under `bytes`; the RSS it ended at. */
    async rssFallsUnder(bytes: number, ms: number): Promise<number> {
      await waitFor("the RSS to fall", async () => (s.rss() < bytes ? true : undefined), ms).catch(
        () => undefined,
      );
      return s.rss();
    },
  };
}
