import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Agent, fetch, Response } from 'undici';

/**
 * Just enough of the OCI distribution API to push a small image to a registry and pull it
 * back, checking every digest: what containerd does when it pulls through a mirror.
 */

export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
const OCI_CONFIG = 'application/vnd.oci.image.config.v1+json';
const OCI_LAYER = 'application/vnd.oci.image.layer.v1.tar+gzip';

export interface Blob {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
  readonly content: Buffer;
}
export interface TestImage {
  readonly manifest: Buffer;
  readonly manifestDigest: string;
  readonly blobs: Blob[];
}

export interface RegistryEndpoint {
  /** `https://127.0.0.1:<port>` or `http://...`. */
  readonly url: string;
  /** Trusted for HTTPS. */
  readonly caFile?: string;
  readonly username?: string;
  readonly password?: string;
}

const sha256 = (content: Buffer) => `sha256:${createHash('sha256').update(content).digest('hex')}`;
const blob = (mediaType: string, content: Buffer): Blob => ({ mediaType, digest: sha256(content), size: content.length, content });

/** A one-layer image whose layer is a real gzipped tar with one file, made with the tar command. */
export function makeTestImage(text: string): TestImage {
  const dir = mkdtempSync(join(tmpdir(), 'mirror-image-'));
  try {
    writeFileSync(join(dir, 'hello.txt'), text);
    execFileSync('tar', ['-czf', join(dir, 'layer.tar.gz'), '-C', dir, '--owner=0', '--group=0', 'hello.txt']);
    const layer = blob(OCI_LAYER, readFileSync(join(dir, 'layer.tar.gz')));
    const config = blob(OCI_CONFIG, Buffer.from(JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: {},
      rootfs: { type: 'layers', diff_ids: [sha256(gunzipSync(layer.content))] },
    })));
    const descriptor = ({ mediaType, digest, size }: Blob) => ({ mediaType, digest, size });
    const manifest = Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: OCI_MANIFEST, config: descriptor(config), layers: [descriptor(layer)] }));
    return { manifest, manifestDigest: sha256(manifest), blobs: [config, layer] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The failure of one registry request, with the status and the registry's own error body. */
export class RegistryError extends Error {
  constructor(readonly status: number, readonly body: string, what: string) {
    super(`${what}: HTTP ${status} ${body.trim()}`);
  }
}

export class RegistryClient {
  private readonly dispatcher: Agent;

  constructor(private readonly endpoint: RegistryEndpoint) {
    this.dispatcher = new Agent({ connect: endpoint.caFile ? { ca: readFileSync(endpoint.caFile) } : {} });
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  private async request(what: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: Buffer } = {}): Promise<Response> {
    const { username, password } = this.endpoint;
    const headers: Record<string, string> = { ...init.headers };
    if (username !== undefined) headers.authorization = `Basic ${Buffer.from(`${username}:${password ?? ''}`).toString('base64')}`;
    const response = await fetch(new URL(path, this.endpoint.url), { method: init.method ?? 'GET', headers, body: init.body, dispatcher: this.dispatcher, redirect: 'follow' });
    if (!response.ok) throw new RegistryError(response.status, await response.text(), `${what} at ${this.endpoint.url}`);
    return response;
  }

  /** Pushes blobs, each in one monolithic upload, then the manifest under `tag`. */
  async push(repository: string, tag: string, image: TestImage): Promise<void> {
    for (const b of image.blobs) {
      const started = await this.request(`starting the upload of ${b.digest}`, `/v2/${repository}/blobs/uploads/`, { method: 'POST' });
      const location = new URL(started.headers.get('location')!, this.endpoint.url);
      location.searchParams.set('digest', b.digest);
      await this.request(`uploading ${b.digest}`, location.pathname + location.search, {
        method: 'PUT',
        headers: { 'content-type': 'application/octet-stream' },
        body: b.content,
      });
    }
    await this.request(`putting the manifest ${repository}:${tag}`, `/v2/${repository}/manifests/${tag}`, {
      method: 'PUT',
      headers: { 'content-type': OCI_MANIFEST },
      body: image.manifest,
    });
  }

  /** Pulls `repository:tag` as containerd would: the manifest, then each blob it names, every digest checked. */
  async pull(repository: string, tag: string): Promise<TestImage> {
    const response = await this.request(`getting the manifest ${repository}:${tag}`, `/v2/${repository}/manifests/${tag}`, { headers: { accept: OCI_MANIFEST } });
    const manifest = Buffer.from(await response.arrayBuffer());
    const parsed = JSON.parse(manifest.toString()) as { config: Blob; layers: Blob[] };
    const blobs: Blob[] = [];
    for (const d of [parsed.config, ...parsed.layers]) {
      const content = Buffer.from(await (await this.request(`getting the blob ${d.digest}`, `/v2/${repository}/blobs/${d.digest}`)).arrayBuffer());
      if (sha256(content) !== d.digest) throw new Error(`blob ${d.digest} of ${repository}:${tag} arrived with digest ${sha256(content)}`);
      blobs.push(blob(d.mediaType, content));
    }
    return { manifest, manifestDigest: sha256(manifest), blobs };
  }

  /** The status of GET `path`, unauthenticated failures included; for probes. */
  async status(path: string): Promise<number> {
    try {
      return (await this.request('probing', path)).status;
    } catch (err) {
      if (err instanceof RegistryError) return err.status;
      throw err;
    }
  }
}
