/**
 * `npm run bench:copyrator` (and the second half of `npm run bench`): one CopyratorRule copying
 * --sources ConfigMaps into --namespaces namespaces, on a private control plane. Prints:
 *
 *   D  time from creating the rule until its status counts every copy, against creating the
 *      same number of ConfigMaps directly with the same concurrency;
 *   E  time for a namespace created afterwards to get its copies, and the API requests that took;
 *   F  API writes during an idle window with a short resync (goal 0), and the controller's RSS.
 */
import * as k8s from '@kubernetes/client-node';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeObject, ObjectClient } from '../src/kube/objects';
import { KubeRest } from '../src/kube/rest';
import { OptionSpec } from '../src/commands/command-line';
import { startControlPlane, stopControlPlane } from '../src/testing/controlplane/controlplane';
import { startController } from '../test/support/controller-process';
import { Conversion, installCrds } from './setup';
import { apiWrites, benchOptions, byLabel, controllerHttp, fixed, increase, forEachLimited, processMemory, secondsSince, sleep, table, total, waitUntil, withRetries, WORKERS_OPTION } from './support';

const OPTIONS: OptionSpec[] = [
  { name: 'sources', type: 'integer', default: '10', description: 'ConfigMaps the rule selects.' },
  { name: 'namespaces', type: 'integer', default: '200', description: 'Target namespaces.' },
  { name: 'concurrency', type: 'integer', default: '16', description: 'Direct creates in flight at once.' },
  WORKERS_OPTION,
  { name: 'idle', type: 'duration', default: '2m', description: 'Figure F: the idle window over which API writes are counted (resync every 30s).' },
];

const SOURCE_NS = 'copy-source';
const log = (text: string) => process.stderr.write(`[bench:copyrator ${new Date().toISOString().slice(11, 19)}] ${text}\n`);
const namespace = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const configMap = (ns: string, name: string, labels: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels }, data: { 'settings.yaml': `name: ${name}\nlevel: info\n` } });

export async function main(argv: string[]): Promise<number> {
  const values = benchOptions('bench:copyrator', OPTIONS, argv);
  if (typeof values === 'number') return values;
  const [sources, namespaces, concurrency, workers, idleMs] = ['sources', 'namespaces', 'concurrency', 'workers', 'idle'].map((k) => values[k] as number);
  const dir = mkdtempSync(join(tmpdir(), 'cdk8s-operators-bench-copyrator-'));
  log(`working in ${dir}`);
  mkdirSync(join(dir, 'controlplane'));
  const plane = await startControlPlane(join(dir, 'controlplane'));
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(plane.kubeconfig);
  const rest = new KubeRest(kc);
  const objects = new ObjectClient(rest, 'cdk8s-operators-bench');
  const controller = startController(['--kubeconfig', plane.kubeconfig, '--kinds', 'copyrators', '--leader-election=false', '--http-port', '0', '--metrics-secure=false', '--workers', String(workers), '--resync-period', '30s', `--copyrator-trusted-namespaces=${SOURCE_NS}`], join(dir, 'controller.log'));
  let conversion: Conversion | undefined;
  try {
    conversion = await installCrds(objects);
    const targets = Array.from({ length: namespaces }, (_, i) => `copy-target-${i}`);
    await objects.apply(namespace(SOURCE_NS));
    await forEachLimited(namespaces, concurrency, (i) => withRetries(() => objects.apply(namespace(targets[i]))).then(() => undefined));
    for (let i = 0; i < sources; i++) await objects.apply(configMap(SOURCE_NS, `source-${i}`, { copy: 'yes' }));
    const { metrics } = await controllerHttp(controller.logFile);
    // Every Active namespace but the source and kube-* is a target: the ones made here, and default.
    const all = await rest.request<{ items: KubeObject[] }>('GET', '/api/v1/namespaces');
    const copies = sources * all.items.filter((ns) => ns.metadata.name !== SOURCE_NS && !ns.metadata.name.startsWith('kube-')).length;

    log(`figure D: ${copies} ConfigMaps created directly, ${concurrency} at a time`);
    let started = performance.now();
    await forEachLimited(copies, concurrency, (i) => withRetries(() => objects.create(configMap(targets[i % namespaces], `direct-${Math.floor(i / namespaces)}`, { direct: 'yes' }))).then(() => undefined));
    const directS = secondsSince(started);
    for (const ns of targets) await rest.request('DELETE', `/api/v1/namespaces/${ns}/configmaps`, { query: { labelSelector: 'direct=yes' } });

    log(`figure D: one rule until its status counts ${copies} copies`);
    const rule = { apiVersion: 'test.com/v1', kind: 'CopyratorRule', metadata: { name: 'bench', namespace: SOURCE_NS }, spec: { ruleType: 'configmap', selector: { copy: 'yes' } } };
    started = performance.now();
    await objects.create(rule);
    await waitUntil('every copy counted', 1_800_000, 250, async () => {
      const status = (await objects.get<KubeObject & { status?: { copies?: number } }>(rule)).status;
      return status?.copies === copies ? true : undefined;
    });
    const ruleS = secondsSince(started);

    log('figure E: a new namespace gets its copies');
    const before = await metrics();
    started = performance.now();
    await objects.apply(namespace('copy-target-late'));
    await waitUntil('the late namespace\u2019s copies', 120_000, 50, async () => {
      const list = await rest.request<{ items: unknown[] }>('GET', '/api/v1/namespaces/copy-target-late/configmaps', { query: { labelSelector: 'copy=yes' } });
      return list.items.length === sources ? true : undefined;
    });
    const lateS = secondsSince(started);
    await sleep(2000);
    const after = await metrics();
    const requestsForLate = increase(byLabel(after, 'cdk8s_operators_api_requests_total', 'method'), byLabel(before, 'cdk8s_operators_api_requests_total', 'method'));

    log(`figure F: ${idleMs / 1000} s idle with a 30 s resync`);
    const idleBefore = await metrics();
    await sleep(idleMs);
    const idleAfter = await metrics();
    const idleWrites = apiWrites(idleAfter) - apiWrites(idleBefore);
    const idleReconciles = total(idleAfter, 'cdk8s_operators_reconciles_total') - total(idleBefore, 'cdk8s_operators_reconciles_total');
    const rss = processMemory(controller.child.pid!);

    process.stdout.write(
      [
        '',
        `== CopyratorRule benchmark: 1 rule, ${sources} sources, ${namespaces} namespaces and default (${copies} copies), --workers ${workers} ==`,
        table([
          ['D  ConfigMaps created directly', `${fixed(directS)} s`, `${fixed(copies / directS, 0)}/s`],
          ['D  rule created until status counts every copy', `${fixed(ruleS)} s`, `${fixed(copies / ruleS, 0)}/s`, `ratio ${fixed(ruleS / directS)}x`],
          ['E  a new namespace until it holds its copies', `${fixed(lateS)} s`, `API requests: ${JSON.stringify(requestsForLate)}`],
          ['F  API writes while idle (goal 0)', `${idleWrites}`, `${idleReconciles} reconciles in ${idleMs / 1000} s`],
          ['F  controller RSS', `${fixed(rss.rssMiB, 1)} MiB`, `peak ${fixed(rss.peakMiB, 1)} MiB`],
        ]),
        '',
      ].join('\n'),
    );
    return 0;
  } finally {
    await controller.stop();
    await conversion?.close();
    await stopControlPlane(join(dir, 'controlplane'));
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}
