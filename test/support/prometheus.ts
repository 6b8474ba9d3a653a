import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Yaml } from 'cdk8s';
import { eventually } from '../../src/testing/cluster';

/**
 * A real Prometheus (Debian's `prometheus` package, scripts/system-packages.sh) on loopback,
 * scraping targets every second and evaluating the given rules every second.
 */
export interface PrometheusProcess {
  readonly url: string;
  /** An instant query through the HTTP API; throws with Prometheus' own error on bad PromQL. */
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  /** The alerts pending or firing now (GET /api/v1/alerts). */
  alerts(): Promise<{ labels: Record<string, string>; annotations: Record<string, string>; state: 'pending' | 'firing' }[]>;
  stop(): Promise<void>;
}

/** A free port on loopback, for a program that takes its port as a flag. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The shipped rules with every `for:` set to `holdFor`, so that an alert the cluster breaks fires
 * within seconds; the expressions (thresholds, windows) stay exactly as shipped.
 */
export function rulesWithShortFor(rulesFile: string, holdFor: string): string {
  const [rules] = Yaml.load(rulesFile) as [{ groups: { rules: { for?: string }[] }[] }];
  for (const group of rules.groups) for (const rule of group.rules) rule.for = holdFor;
  return Yaml.stringify(rules);
}

/** `scrape`: more of the job's scrape config, e.g. its scheme, authorization and tls_config. */
export async function startPrometheus(dir: string, options: { job: string; targets: string[]; rules: string; scrape?: Record<string, unknown> }): Promise<PrometheusProcess> {
  const port = await freePort();
  writeFileSync(join(dir, 'rules.yaml'), options.rules);
  const config = {
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    rule_files: [join(dir, 'rules.yaml')],
    scrape_configs: [{ job_name: options.job, static_configs: [{ targets: options.targets }], ...options.scrape }],
  };
  writeFileSync(join(dir, 'prometheus.yml'), Yaml.stringify(config));
  const log = join(dir, 'prometheus.log');
  const logFd = openSync(log, 'a');
  const child: ChildProcess = spawn(
    'prometheus',
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', logFd, logFd] },
  );
  closeSync(logFd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const api = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${url}${path}`);
    const body = (await response.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`Prometheus ${path}: ${body.error}`);
    return body.data;
  };
  await eventually(`Prometheus to be ready (its log: ${log})`, async () => ((await fetch(`${url}/-/ready`).catch(() => undefined))?.ok ? true : undefined));
  return {
    url,
    query: async (expr) => (await api<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(`/api/v1/query?query=${encodeURIComponent(expr)}`)).result,
    alerts: async () => (await api<{ alerts: Awaited<ReturnType<PrometheusProcess['alerts']>> }>('/api/v1/alerts')).alerts,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
