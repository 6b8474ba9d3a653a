import * as k8s from '@kubernetes/client-node';
import { KEEP_ON_DELETE_ANNOTATION } from '../../src/core/kit/child-policy';
import { MANAGED_BY_LABEL, OWNER_KIND_LABEL, OWNER_NAME_LABEL, OWNER_NAMESPACE_LABEL, CHILD_MANAGER } from '../../src/core/kit/names';
import { KINDS } from '../../src/kinds';
import { KubeRest } from '../../src/kube/rest';
import { childState } from '../../src/runtime/readiness';
import { NS } from './cluster';
import { History } from './history';
import { Invariant, INVARIANTS, ORPHAN_BOUND_MS } from './invariants';
import { LeakScanner } from './leaks';
import { Change, Json, keyOf, Mirror } from './mirror';
import { Term } from './writes';
import { PLANTED_LABEL } from './workload';

/** Children's resources: every kind's children are among these (the bundle's RBAC grants no others). */
const CHILD_PATHS = ['/api/v1/configmaps', '/api/v1/services', '/api/v1/persistentvolumeclaims', '/api/v1/secrets', '/apis/apps/v1/statefulsets', '/apis/apps/v1/daemonsets', '/apis/batch/v1/jobs', '/apis/batch/v1/cronjobs', '/apis/networking.k8s.io/v1/networkpolicies'];
const OUR_KINDS = new Set(KINDS.map((k) => k.kind));

export interface Violation {
  readonly invariant: Invariant;
  readonly at: number;
  readonly what: string;
}

type Step = { rv: number; ready: boolean; gone: boolean; why?: string };
const rvOf = (o: Json) => Number(o.metadata.resourceVersion ?? 0);
export const readyCondition = (o: Json) => (o.status?.conditions as { type: string; status: string; reason?: string }[] | undefined)?.find((c) => c.type === 'Ready');

/**
 * Watches the cluster itself (not through the fault proxy) and holds the controller to the
 * invariants all the time: each break is counted when it happens, with the soak's time.
 */
export class Checker {
  readonly violations: Violation[] = [];
  readonly terms: Term[] = [];
  /** Every custom resource, by `<plural>.<group>|<namespace>|<name>`. */
  readonly owners = new Map<string, Json>();
  readonly crMirrors: Mirror[] = [];
  readonly jobs = new Map<string, Json>();
  private readonly mirrors: Mirror[] = [];
  private readonly children = new Map<string, Json>();
  private readonly childHistory = new Map<string, Step[]>();
  /** How long each orphan has waited for the garbage collector, not counting time the control plane was down. */
  private readonly orphanAge = new Map<string, { since: number; waited: number; last: number }>();
  /** Whether a fault has the API server or etcd down now: the garbage collector cannot work meanwhile. */
  planeDown: () => boolean = () => false;
  private readonly reported = new Set<string>();
  private readonly plantedVersions = new Map<string, string>();
  private readonly snapshotDone = new Set<string>();
  /** Databases whose standby StatefulSet went while they lived (a scale-down): its claims follow later, as the garbage collector gets to them. */
  private readonly scaledDown = new Set<string>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly kc: k8s.KubeConfig,
    private readonly rest: KubeRest,
    private readonly history: History,
    readonly leaks: LeakScanner,
    private readonly periodic: () => void,
  ) {}

  async start(): Promise<void> {
    const managed = `${MANAGED_BY_LABEL}=${CHILD_MANAGER}`;
    for (const kind of KINDS) {
      const mirror = new Mirror(this.kc, this.rest, `/apis/${kind.group}/${kind.version}/${kind.plural}`, (change, o, before) => this.onOwner(`${kind.plural}.${kind.group}`, change, o, before));
      this.crMirrors.push(mirror);
      this.mirrors.push(mirror);
    }
    for (const path of CHILD_PATHS) this.mirrors.push(new Mirror(this.kc, this.rest, path, (change, o, before) => this.onChild(change, o, before), managed));
    for (const path of ['/api/v1/configmaps', '/api/v1/services']) this.mirrors.push(new Mirror(this.kc, this.rest, path, (change, o, before) => this.onPlanted(change, o, before), `${PLANTED_LABEL}=true`));
    this.mirrors.push(new Mirror(this.kc, this.rest, `/api/v1/namespaces/${NS.databases}/persistentvolumeclaims`, (change, o, before) => this.onClaim(change, o, before)));
    this.mirrors.push(new Mirror(this.kc, this.rest, `/apis/batch/v1/namespaces/${NS.databases}/jobs`, (change, o) => this.onJob(change, o)));
    this.mirrors.push(new Mirror(this.kc, this.rest, '/api/v1/secrets', (change, o) => change !== 'DELETED' && this.leaks.learnSecret(o)));
    this.mirrors.push(new Mirror(this.kc, this.rest, '/api/v1/events', (change, o) => change !== 'DELETED' && this.leaks.scan(`Event ${keyOf(o)}`, [o.message, o.note, o.reason].filter(Boolean).join(' '))));
    this.mirrors.push(new Mirror(this.kc, this.rest, `/apis/coordination.k8s.io/v1/namespaces/${NS.controller}/leases`, (change, o) => change !== 'DELETED' && this.onLease(o)));
    // Secrets first, so that the values are known before anything is scanned for them.
    const order = [...this.mirrors].sort((a, b) => Number(b.path === '/api/v1/secrets') - Number(a.path === '/api/v1/secrets'));
    for (const mirror of order) await mirror.start();
    this.timer = setInterval(() => this.tick(), 5000);
  }

  stop(): void {
    clearInterval(this.timer);
    for (const m of this.mirrors) m.stop();
  }

  /** `at`: when it happened (epoch ms), for a violation judged afterwards; its history is the one before then. */
  violate(invariant: Invariant, what: string, once = what, at = Date.now()): void {
    if (this.reported.has(`${invariant} ${once}`)) return;
    this.reported.add(`${invariant} ${once}`);
    this.violations.push({ invariant, at: this.history.seconds(at), what });
    this.history.add('checker', `VIOLATION ${invariant}: ${what}`);
  }

  count(invariant: Invariant): number {
    return this.violations.filter((v) => v.invariant === invariant).length;
  }

  /** Children whose owner is gone (now), by key. */
  orphans(): string[] {
    return [...this.children.values()].filter((c) => this.ownerKeyOf(c) && !this.owners.has(this.ownerKeyOf(c)!) && c.metadata.annotations?.[KEEP_ON_DELETE_ANNOTATION] !== 'true').map(describeJson);
  }

  snapshotSucceeded(db: string): boolean {
    return this.snapshotDone.has(db);
  }

  private tick(): void {
    const now = Date.now();
    const orphans = new Set(this.orphans());
    for (const [key, age] of [...this.orphanAge]) {
      if (orphans.has(key)) continue;
      this.orphanAge.delete(key);
      // Only the slow ones: how long the garbage collector took is the story of a near miss.
      if (now - age.since > ORPHAN_BOUND_MS / 2) this.history.add('checker', `${key} outlived its owner by ${Math.round((now - age.since) / 1000)} s (${Math.round(age.waited / 1000)} s with the control plane up)`);
    }
    const down = this.planeDown();
    for (const key of orphans) {
      const age = this.orphanAge.get(key) ?? { since: now, waited: 0, last: now };
      if (!down) age.waited += now - age.last;
      age.last = now;
      this.orphanAge.set(key, age);
      if (age.waited > ORPHAN_BOUND_MS) this.violate('orphan-children', `${key} has outlived its owner by more than ${ORPHAN_BOUND_MS / 1000} s with the control plane up (${Math.round((now - age.since) / 1000)} s in all)`, key);
    }
    this.periodic();
  }

  private ownerKeyOf(child: Json): string | undefined {
    const labels = child.metadata.labels ?? {};
    if (!labels[OWNER_KIND_LABEL] || !labels[OWNER_NAME_LABEL]) return undefined;
    const refs = child.metadata.ownerReferences ?? [];
    // Grandchildren (a StatefulSet's claims, a Job's pods) carry the labels too, but belong to their own owners.
    if (refs.length && !refs.some((r) => OUR_KINDS.has(r.kind))) return undefined;
    return `${labels[OWNER_KIND_LABEL]}|${labels[OWNER_NAMESPACE_LABEL] ?? ''}|${labels[OWNER_NAME_LABEL]}`;
  }

  private onOwner(kindKey: string, change: Change, o: Json, before?: Json): void {
    const key = `${kindKey}|${o.metadata.namespace ?? ''}|${o.metadata.name}`;
    if (change === 'DELETED') return void this.owners.delete(key);
    this.owners.set(key, o);
    if (o.status) this.leaks.scan(`status of ${o.kind} ${keyOf(o)}`, JSON.stringify(o.status));
    const ready = readyCondition(o);
    const claims = ready?.status === 'True' && o.status?.observedGeneration === o.metadata.generation;
    if (!claims || JSON.stringify(before?.status) === JSON.stringify(o.status)) return;
    const rv = rvOf(o);
    // The children's watches may lag the owner's: judge them a little later, as of this resourceVersion.
    setTimeout(() => this.judgeReady(key, `${o.kind} ${keyOf(o)}`, rv), 5000);
  }

  private judgeReady(ownerKey: string, owner: string, rv: number): void {
    for (const [childKey, steps] of this.childHistory) {
      if (!childKey.startsWith(`${ownerKey}#`)) continue;
      const at = steps.filter((s) => s.rv <= rv).at(-1);
      if (at && !at.gone && !at.ready) this.violate('ready-with-unready-children', `${owner} said Ready at resourceVersion ${rv} while ${childKey.split('#')[1]} was not (${at.why})`, `${owner}@${rv}`);
    }
  }

  private onChild(change: Change, o: Json, before?: Json): void {
    if (o.kind === 'StatefulSet') this.onStatefulSet(change, o, before);
    const ownerKey = this.ownerKeyOf(o);
    const key = describeJson(o);
    if (change === 'DELETED') this.children.delete(key);
    else this.children.set(key, o);
    if (!ownerKey) return;
    const historyKey = `${ownerKey}#${key}`;
    const steps = this.childHistory.get(historyKey) ?? [];
    const state = change === 'DELETED' ? undefined : childState(o as Parameters<typeof childState>[0]);
    steps.push({ rv: rvOf(o), ready: state?.ready ?? false, gone: change === 'DELETED', why: state && !state.ready ? state.message : undefined });
    this.childHistory.set(historyKey, steps.slice(-20));
  }

  private onPlanted(change: Change, o: Json, before?: Json): void {
    const key = describeJson(o);
    const original = this.plantedVersions.get(key);
    if (change === 'ADDED' && !original) return void this.plantedVersions.set(key, o.metadata.resourceVersion!);
    if (change === 'DELETED') return this.violate('unmanaged-changed', `the user's ${key} was deleted`);
    if (o.metadata.resourceVersion !== original) this.violate('unmanaged-changed', `the user's ${key} was changed (resourceVersion ${before?.metadata.resourceVersion ?? original} -> ${o.metadata.resourceVersion})`, key);
  }

  private onJob(change: Change, o: Json): void {
    if (change === 'DELETED') this.jobs.delete(o.metadata.name);
    else this.jobs.set(o.metadata.name, o);
    const name = o.metadata.name;
    if (name.endsWith('-snapshot') && (o.status?.succeeded ?? 0) >= 1) this.snapshotDone.add(name.slice(0, -'-snapshot'.length));
  }

  /**
   * A standby StatefulSet (`<db>-standby`) removed before its Database's deletion began: a
   * scale-down served while the Database lived. Its deletion's time is the server's (or, for
   * one removed at once, when the watch told it, which is no earlier).
   */
  private onStatefulSet(change: Change, o: Json, before?: Json): void {
    const db = /^(.+)-standby$/.exec(o.metadata.name)?.[1];
    if (!db) return;
    if (change === 'ADDED') return void this.scaledDown.delete(db);
    const going = change === 'DELETED' ? !before?.metadata.deletionTimestamp : !!o.metadata.deletionTimestamp && !before?.metadata.deletionTimestamp;
    if (!going) return;
    const goneAt = o.metadata.deletionTimestamp ? Date.parse(o.metadata.deletionTimestamp) : Date.now();
    const owner = this.database(db);
    if (owner && (!owner.metadata.deletionTimestamp || goneAt < Date.parse(owner.metadata.deletionTimestamp))) this.scaledDown.add(db);
  }

  private database(name: string): Json | undefined {
    return [...this.owners.values()].find((x) => x.kind === 'Database' && x.metadata.namespace === NS.databases && x.metadata.name === name);
  }

  /** A data volume (`data-<db>[-standby]-<n>`) being deleted: only after the snapshot, or a standby's after a scale-down served while its Database lived. */
  private onClaim(change: Change, o: Json, before?: Json): void {
    const going = change === 'DELETED' ? !before?.metadata.deletionTimestamp : !!o.metadata.deletionTimestamp && !before?.metadata.deletionTimestamp;
    const match = /^data-(.+?)(-standby)?-\d+$/.exec(o.metadata.name);
    if (!going || !match) return;
    const [, db, standby] = match;
    if (this.snapshotDone.has(db)) return;
    const owner = this.database(db);
    if (standby && ((owner && !owner.metadata.deletionTimestamp) || this.scaledDown.has(db))) return;
    if (owner?.spec?.deletionPolicy === 'Delete') return;
    this.violate('data-before-snapshot', `claim ${o.metadata.name} is being removed and Database ${db}'s snapshot has not succeeded`);
  }

  private onLease(o: Json): void {
    const holder = o.spec?.holderIdentity as string | undefined;
    const acquired = o.spec?.acquireTime as string | undefined;
    if (!holder || !acquired) return;
    const from = Date.parse(acquired);
    if (this.terms.some((t) => t.from === from && t.holder === holder)) return;
    this.terms.push({ holder, from });
    this.history.add('checker', `leader term: ${holder} since ${acquired}`);
  }
}

export function describeJson(o: Json): string {
  return `${o.kind} ${keyOf(o)}`;
}

export { INVARIANTS };
