/**
 * `npm run bench:conversion`: the conversion webhook's ConversionReview latency and throughput at
 * 1 and 50 objects per review (the real kinds' v1 objects converted to v2 and back, over HTTPS to
 * the engine's conversion server on loopback, one review at a time on one kept-alive connection),
 * and the resident memory the webhook adds to an idle controller process.
 */
import { execFileSync } from 'node:child_process';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { hasVersions } from '../src/core/contract/versions';
import { KubeJson } from '../src/core/contract/kind';
import { KINDS } from '../src/kinds';
import { OptionSpec } from '../src/commands/command-line';
import { LocalConversion, startLocalConversion } from '../test/support/conversion';
import { benchOptions, fixed, table } from './support';

const OPTIONS: OptionSpec[] = [{ name: 'reviews', type: 'integer', default: '2000', description: 'Reviews sent for each size and direction.' }];
const SIZES = [1, 50];

/** The originals' own objects, as users wrote them in v1. */
const SAMPLES: Record<string, (i: number) => KubeJson> = {
  CopyratorRule: (i) => ({ apiVersion: 'test.com/v1', kind: 'CopyratorRule', metadata: { name: `rule-${i}`, namespace: 'team-a' }, ruleType: 'configmap', selector: { copyrator: 'true' }, namespace: ['default', 'shared'] }),
  Database: (i) => ({ apiVersion: 'stable.imaginedata.com/v1', kind: 'Database', metadata: { name: `db-${i}`, namespace: 'team-a' }, spec: { name: 'name-of-database', port: 5432, 'storage-size': '50G', image: 'super-great-docker-image', replicas: 3 } }),
};

function post(agent: Agent, url: URL, body: string): Promise<{ response: { result: { status: string }; convertedObjects: KubeJson[] } }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** `reviews` reviews of `objects` to `desired`, one at a time: latencies (ms) and objects per second. */
async function measure(webhook: LocalConversion, objects: KubeJson[], desired: string, reviews: number): Promise<{ p50: number; p99: number; perSecond: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: Buffer.from(webhook.caBundle, 'base64').toString('utf8') });
  const url = new URL(webhook.url);
  const body = (uid: number) => JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: String(uid), desiredAPIVersion: desired, objects } });
  for (let i = 0; i < 50; i++) await post(agent, url, body(i)); // warm-up
  const latencies: number[] = [];
  const started = process.hrtime.bigint();
  for (let i = 0; i < reviews; i++) {
    const t = process.hrtime.bigint();
    const answer = await post(agent, url, body(i));
    latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (answer.response.result.status !== 'Success') throw new Error(`a review failed: ${JSON.stringify(answer.response.result)}`);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), perSecond: (reviews * objects.length) / seconds };
}

/** RSS (MiB) of a fresh Node that loaded the controller's entry point, and of one that also serves conversion. */
function idleRss(): { without: number; withWebhook: number } {
  const lib = join(__dirname, '..');
  const rss = (script: string) => Number(execFileSync(process.execPath, ['-e', `${script}; setTimeout(() => { console.log(process.memoryUsage().rss); process.exit(0); }, 1000)`], { encoding: 'utf8' }).trim()) / 1048576;
  const main = `require(${JSON.stringify(join(lib, 'src', 'commands', 'controller'))})`;
  const serve = `const { startLocalConversion } = require(${JSON.stringify(join(lib, 'test', 'support', 'conversion'))}); const { KINDS } = require(${JSON.stringify(join(lib, 'src', 'kinds'))}); startLocalConversion(KINDS)`;
  return { without: rss(main), withWebhook: rss(`${main}; ${serve}`) };
}

export async function main(argv: string[]): Promise<number> {
  const values = benchOptions('bench:conversion', OPTIONS, argv);
  if (typeof values === 'number') return values;
  const reviews = values.reviews as number;
  const kinds = KINDS.filter(hasVersions);
  const webhook = await startLocalConversion(KINDS);
  const rows: string[][] = [['kind', 'objects per review', 'direction', 'p50 ms', 'p99 ms', 'objects/s']];
  try {
    for (const kind of kinds) {
      const sample = SAMPLES[kind.kind];
      if (!sample) continue;
      for (const size of SIZES) {
        const v1 = Array.from({ length: size }, (_, i) => sample(i));
        const up = await measure(webhook, v1, `${kind.group}/${kind.version}`, reviews);
        rows.push([kind.kind, String(size), `v1 -> ${kind.version}`, fixed(up.p50), fixed(up.p99), fixed(up.perSecond, 0)]);
        const hub = (await post(new Agent({ ca: Buffer.from(webhook.caBundle, 'base64').toString('utf8') }), new URL(webhook.url), JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'hub', desiredAPIVersion: `${kind.group}/${kind.version}`, objects: v1 } }))).response.convertedObjects;
        const down = await measure(webhook, hub, `${kind.group}/v1`, reviews);
        rows.push([kind.kind, String(size), `${kind.version} -> v1`, fixed(down.p50), fixed(down.p99), fixed(down.perSecond, 0)]);
      }
    }
  } finally {
    await webhook.close();
  }
  console.log(`ConversionReviews over HTTPS on loopback, ${reviews} per row, one at a time:\n${table(rows)}`);
  const { without, withWebhook } = idleRss();
  console.log(`\nIdle RSS: the controller's entry point ${fixed(without, 1)} MiB; serving conversion too ${fixed(withWebhook, 1)} MiB (+${fixed(withWebhook - without, 1)} MiB)`);
  return 0;
}

if (require.main === module) void main(process.argv.slice(2)).then((code) => process.exit(code));
