import { KubeRest } from '../../src/kube/rest';

/** The Kubernetes release the API server reports (`/version`), for tests whose expectations follow it. */
export async function serverRelease(rest: KubeRest): Promise<{ gitVersion: string; major: number; minor: number }> {
  const version = await rest.request<{ gitVersion: string; major: string; minor: string }>('GET', '/version');
  return { gitVersion: version.gitVersion, major: Number(version.major), minor: Number.parseInt(version.minor, 10) };
}
