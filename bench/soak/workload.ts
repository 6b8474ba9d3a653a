import { apiVersionOf } from '../../src/core/contract/kind';
import { KINDS } from '../../src/kinds';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { CREDENTIALS_FOR } from '../../src/kinds/registrymirror/refusals';
import { namespace, NS } from './cluster';
import { History } from './history';
import { Rng } from './rng';

/** Marks the users' own objects the soak plants under children's names: they must never change. */
export const PLANTED_LABEL = 'soak.cdk8s-operators.io/planted';
const PLANTED = { [PLANTED_LABEL]: 'true' };

const apiVersion = (kind: string) => apiVersionOf(KINDS.find((k) => k.kind === kind)!);
const CURRENCIES = ['USD', 'GBP', 'CHF', 'JPY'];
const BRANDS = ['Fender', 'Gibson', 'Ibanez', 'PRS', 'Yamaha'];
const DB_IMAGES = ['postgres:17.1', 'postgres:17.2', 'postgres:17.3'];

/** How many deletions are foreground rather than background. */
const FOREGROUND_DATABASES = 0.5;
const FOREGROUND_OTHERS = 0.2;

type Counts = Record<string, { created: number; edited: number; deleted: number; foreground: number }>;

/**
 * The churn, every step drawn from the seed: ExchangeRates created, edited and deleted;
 * CopyratorRules created and deleted (each with a source of its own), the standing rule's
 * source edited, and target namespaces coming and going; Guitars
 * re-branded; RegistryMirrors whose credentials Secret appears late; Databases created,
 * resized, upgraded and deleted (each deletion a final snapshot); deletions in the
 * foreground or the background; and users' own objects
 * planted under children's names before their owners exist.
 */
export class Workload {
  readonly counts: Counts = {};
  /** Every Secret value the soak wrote: none may show up in a log line, an Event or a status. */
  readonly secretValues = new Set<string>();
  /** Owners whose planted objects make them Ready False (Conflict) for good: `Kind ns/name`. */
  readonly conflicted = new Set<string>();
  private readonly live = new Map<string, KubeObject[]>();
  private serial = 0;
  private pending: Promise<unknown>[] = [];

  constructor(
    private readonly objects: ObjectClient,
    private readonly rng: Rng,
    private readonly history: History,
  ) {}

  /** The planted objects and their owners, and the standing CopyratorRule. */
  async seed(): Promise<void> {
    await this.plant({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'planted-rates', namespace: NS.rates, labels: PLANTED }, data: { owner: 'a user' } });
    await this.create(this.exchangeRate('rate-planted', 'planted-rates'));
    this.conflicted.add(`ExchangeRate ${NS.rates}/rate-planted`);
    await this.plant({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'db-planted-readonly', namespace: NS.databases, labels: PLANTED }, spec: { ports: [{ port: 5432 }] } });
    await this.create(this.database('db-planted', 2)); // the read-only Service is rendered from 2 replicas on
    this.conflicted.add(`Database ${NS.databases}/db-planted`);
    await this.objects.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared-a', namespace: NS.copySource, labels: { copyrator: 'true' } }, data: { version: '0' } });
    await this.plant({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared-a', namespace: NS.copyFixed, labels: PLANTED }, data: { owner: 'a user' } });
    await this.create(this.copyRule('rule-shared'));
    this.conflicted.add(`CopyratorRule ${NS.copySource}/rule-shared`);
  }

  /** One random step; a step the API refuses (it may be down) is logged and skipped. */
  async step(): Promise<void> {
    const action = this.rng.pick([this.rates, this.copies, this.guitars, this.mirrors, this.databases]);
    try {
      await action.call(this);
    } catch (err) {
      this.history.add('workload', `step failed (${(err as Error).message.split('\n')[0].slice(0, 160)})`);
    }
  }

  /** Waits for the late Secrets still to come. */
  async settle(): Promise<void> {
    await Promise.allSettled(this.pending);
  }

  private async rates(): Promise<void> {
    await this.churn('ExchangeRate', 5, (name) => this.exchangeRate(name), (o) => ({ ...o, spec: { ...(o.spec as object), currency: this.rng.pick(CURRENCIES) } }));
  }

  private async guitars(): Promise<void> {
    await this.churn('Guitar', 4, (name) => ({ apiVersion: apiVersion('Guitar'), kind: 'Guitar', metadata: { name, namespace: NS.guitars }, spec: { brand: this.rng.pick(BRANDS) } }), (o) => ({ ...o, spec: { brand: this.rng.pick(BRANDS) } }));
  }

  private async copies(): Promise<void> {
    const roll = this.rng.int(0, 3);
    if (roll === 3) return this.copyRules();
    if (roll === 0) {
      const value = String(this.rng.int(1, 1_000_000));
      await this.objects.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared-a', namespace: NS.copySource, labels: { copyrator: 'true' } }, data: { version: value } });
      this.count('CopyratorRule source', 'edited');
      this.history.add('workload', `edited source ConfigMap ${NS.copySource}/shared-a (version ${value})`);
      return;
    }
    const targets = this.live.get('Namespace') ?? [];
    if (roll === 1 && targets.length < 3) {
      const created = namespace(`soak-t-${++this.serial}`, { 'soak-target': 'true' });
      await this.objects.apply(created);
      this.remember(created);
      this.count('target Namespace', 'created');
      this.history.add('workload', `created target namespace ${created.metadata.name}`);
    } else if (targets.length) {
      const gone = this.rng.pick(targets);
      await this.objects.delete(gone);
      this.forget(gone);
      this.count('target Namespace', 'deleted');
      this.history.add('workload', `deleted target namespace ${gone.metadata.name}`);
    }
  }

  /**
   * Up to 2 rules beside the standing one, each copying a source ConfigMap of its own (named
   * after the rule, so no two rules and no planted object claim one copy) into every target
   * namespace; a deleted rule's copies must go with it, then its source goes too.
   */
  private async copyRules(): Promise<void> {
    const live = (this.live.get('CopyratorRule') ?? []).filter((r) => r.metadata.name !== 'rule-shared');
    if (live.length < 2 && this.rng.chance(0.6)) {
      const name = `copyratorrule-${++this.serial}`;
      await this.objects.apply(this.ruleSource(name));
      this.count('CopyratorRule source', 'created');
      return this.create(this.copyRule(name, { 'soak-rule': name }));
    }
    if (!live.length) return;
    const rule = this.rng.pick(live);
    await this.remove(rule);
    await this.objects.delete(this.ruleSource(rule.metadata.name));
    this.count('CopyratorRule source', 'deleted');
  }

  private ruleSource(rule: string): KubeObject {
    return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${rule}-source`, namespace: NS.copySource, labels: { 'soak-rule': rule } }, data: { rule } };
  }

  private async mirrors(): Promise<void> {
    const live = this.live.get('RegistryMirror') ?? [];
    if (live.length < 2 && this.rng.chance(0.6)) {
      const name = `mirror-${++this.serial}`;
      // Each its own upstream (one registry name has one mirror), in the domain the tests' allowlist names; its Secret names it.
      await this.create({ apiVersion: apiVersion('RegistryMirror'), kind: 'RegistryMirror', metadata: { name }, spec: { upstreamUrl: `${name}.mirrors.test`, credentialsSecret: `${name}-creds` } });
      // The credentials come late: the mirror must wait for them, saying so, and then use them.
      const delayMs = this.rng.int(5, 40) * 1000;
      const password = this.secret();
      this.pending.push(new Promise((resolve) => setTimeout(resolve, delayMs)).then(async () => {
        await this.objects.apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-creds`, namespace: NS.mirrors, annotations: { [CREDENTIALS_FOR]: name } }, stringData: { username: 'soak', password } } as KubeObject);
        this.history.add('workload', `created the late credentials Secret of RegistryMirror ${name}`);
      }).catch((err: Error) => this.history.add('workload', `late Secret of ${name} failed (${err.message.slice(0, 120)})`)));
    } else if (live.length) {
      await this.remove(this.rng.pick(live));
    }
  }

  private async databases(): Promise<void> {
    const live = (this.live.get('Database') ?? []).filter((d) => d.metadata.name !== 'db-planted');
    const roll = this.rng.int(0, 9);
    if (live.length < 2 && roll < 5) return void (await this.create(this.database(`db-${++this.serial}`)));
    if (!live.length) return;
    const db = this.rng.pick(live) as KubeObject & { spec: { replicas: number; image: string } };
    if (roll < 7) {
      const replicas = db.spec.replicas === 1 ? 2 : 1;
      await this.edit({ ...db, spec: { ...db.spec, replicas } }, `resized to ${replicas} replicas`);
    } else if (roll < 9) {
      const next = DB_IMAGES[DB_IMAGES.indexOf(db.spec.image) + 1];
      if (next) await this.edit({ ...db, spec: { ...db.spec, image: next } }, `upgraded to ${next}`);
    } else {
      await this.remove(db);
    }
  }

  /** Create one more (below `max`), edit one, or delete one. */
  private async churn(kind: string, max: number, make: (name: string) => KubeObject, change: (o: KubeObject) => KubeObject): Promise<void> {
    const live = (this.live.get(kind) ?? []).filter((o) => !o.metadata.name.includes('planted'));
    const roll = this.rng.int(0, 9);
    if (live.length < max && roll < 4) return void (await this.create(make(`${kind.toLowerCase()}-${++this.serial}`)));
    if (!live.length) return;
    const target = this.rng.pick(live);
    if (roll < 8) await this.edit(change(target), 'edited');
    else await this.remove(target);
  }

  private exchangeRate(name: string, configMapName?: string): KubeObject {
    return { apiVersion: apiVersion('ExchangeRate'), kind: 'ExchangeRate', metadata: { name, namespace: NS.rates }, spec: { currency: this.rng.pick(CURRENCIES), refreshInterval: '30m', ...(configMapName ? { configMapName } : {}) } };
  }

  private database(name: string, replicas = this.rng.int(1, 2)): KubeObject {
    return { apiVersion: apiVersion('Database'), kind: 'Database', metadata: { name, namespace: NS.databases }, spec: { name: 'orders', storageSize: '1Gi', image: DB_IMAGES[0], replicas } };
  }

  private copyRule(name: string, selector: Record<string, string> = { copyrator: 'true' }): KubeObject {
    return { apiVersion: apiVersion('CopyratorRule'), kind: 'CopyratorRule', metadata: { name, namespace: NS.copySource }, spec: { ruleType: 'configmap', selector, namespaceSelector: { 'soak-target': 'true' } } };
  }

  private secret(): string {
    const value = Array.from({ length: 24 }, () => this.rng.int(0, 35).toString(36)).join('');
    this.secretValues.add(value);
    return value;
  }

  private async plant(o: KubeObject): Promise<void> {
    await this.objects.create(o);
    this.history.add('workload', `planted a user's ${o.kind} ${o.metadata.namespace}/${o.metadata.name}`);
  }

  private async create(o: KubeObject): Promise<void> {
    await this.objects.apply(o);
    this.remember(o);
    this.count(o.kind, 'created');
    this.history.add('workload', `created ${describe(o)}`);
  }

  private async edit(o: KubeObject, what: string): Promise<void> {
    await this.objects.apply(o);
    this.remember(o);
    this.count(o.kind, 'edited');
    this.history.add('workload', `${what} ${describe(o)}`);
  }

  /**
   * Deletes with the propagation policy drawn from the seed: foreground (kubectl's
   * --cascade=foreground, Argo CD's prune) for half the Databases, whose final snapshot it must
   * not outrun, and a fifth of the rest; background otherwise.
   */
  private async remove(o: KubeObject): Promise<void> {
    const propagationPolicy = this.rng.chance(o.kind === 'Database' ? FOREGROUND_DATABASES : FOREGROUND_OTHERS) ? 'Foreground' : 'Background';
    await this.objects.rest.request('DELETE', await this.objects.discovery.objectPath(o), { body: { propagationPolicy } });
    this.forget(o);
    this.count(o.kind, 'deleted');
    if (propagationPolicy === 'Foreground') this.count(o.kind, 'foreground');
    this.history.add('workload', `deleted ${describe(o)} (${propagationPolicy.toLowerCase()})`);
  }

  private remember(o: KubeObject): void {
    const list = (this.live.get(o.kind) ?? []).filter((x) => x.metadata.name !== o.metadata.name);
    this.live.set(o.kind, [...list, o]);
  }

  private forget(o: KubeObject): void {
    this.live.set(o.kind, (this.live.get(o.kind) ?? []).filter((x) => x.metadata.name !== o.metadata.name));
  }

  private count(kind: string, what: 'created' | 'edited' | 'deleted' | 'foreground'): void {
    (this.counts[kind] ??= { created: 0, edited: 0, deleted: 0, foreground: 0 })[what]++;
  }
}

export function describe(o: KubeObject): string {
  return `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
}
