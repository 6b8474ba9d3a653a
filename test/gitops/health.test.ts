import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { allIdentities, crdName, mainIdentity } from '../../src/core/groups';
import { AnyKind, KindCondition, ReadyVerdict } from '../../src/core/contract/kind';
import { SYSTEM_CLOCK } from '../../src/core/contract/clock';
import { ENGINE_FAILURE_REASONS, ENGINE_PROGRESS_REASONS, failureReasons } from '../../src/core/kit/status';
import { argoCdHealthPatch, healthKey } from '../../src/gitops/argocd-health';
import { KIND_FOLDERS, KINDS } from '../../src/kinds';
import { kindConditions, statusPatch, verdictConditions } from '../../src/runtime/status';
import { ALL_CASES } from '../kinds/all-cases';
import { objectOf } from '../kinds/cases';
import { toolsBeforeAll } from '../support/go-tool';
import { argoCdHealth, gitopsHealth, Judgement, kstatus, SHIPPED_HEALTH, shippedHealthScripts } from './tools';

toolsBeforeAll(gitopsHealth);

const root = join(__dirname, '..', '..');

interface State {
  readonly name: string;
  readonly object: Record<string, unknown>;
  /** What Argo CD must say, and what kstatus must say. */
  readonly argoCd: string;
  readonly kstatus: string;
  /** Words the Argo CD message must hold. */
  readonly says?: string;
}

type Options = { generation?: number; deleting?: boolean; kindStatus?: object; own?: readonly KindCondition[] };

/** An object of `kind` whose status is what the engine's status writer makes of `verdict`, at generation 3. */
function objectWith(kind: AnyKind, verdict: ReadyVerdict | undefined, { generation = 3, deleting = false, kindStatus = {}, own = [] }: Options = {}): Record<string, unknown> {
  const cases = ALL_CASES.find((c) => c.kind === mainIdentity(kind));
  if (!cases) throw new Error(`${kind.kind} has no validation table, whose first valid object these states are made of (see test/kinds/validation.test.ts)`);
  const base = objectOf(kind, 'sample', cases.valid[0].body, 'team-a') as Record<string, unknown> & { metadata: Record<string, unknown> };
  const observed = { ...base, metadata: { ...base.metadata, uid: 'u-1', generation: 3 } } as never;
  const status = verdict ? statusPatch(observed, [...verdictConditions(kind, observed, verdict, SYSTEM_CLOCK), ...kindConditions(kind, observed, own, SYSTEM_CLOCK)], kindStatus) : undefined;
  return {
    ...base,
    metadata: { ...base.metadata, uid: 'u-1', generation, ...(deleting ? { deletionTimestamp: '2026-11-24T10:00:00Z', finalizers: ['example.com/last-step'] } : {}) },
    ...(status ? { status } : {}),
  };
}

/** The kind's own Ready=False reasons that mean work in progress, as its definition declares them. */
const progressReasons = (kind: AnyKind): readonly string[] => kind.controller?.progressReasons ?? [];

const notReady = (reason: string): ReadyVerdict => ({ status: 'False', reason, message: `because of ${reason}` });

/** The kind's own conditions, each of these types with this status. */
const ownConditions = (types: readonly string[], status: KindCondition['status']): KindCondition[] => types.map((type) => ({ type, status, reason: 'Own', message: `${type} is ${status}` }));

/** Every state an object of `kind` can be in, with what Argo CD and kstatus must make of it. */
function statesOf(kind: AnyKind): State[] {
  const healthy: ReadyVerdict = { status: 'True', reason: kind.controller?.readyReason ?? 'Reconciled', message: '1 child ready' };
  const failures = failureReasons(kind);
  const progress = [...ENGINE_PROGRESS_REASONS, ...progressReasons(kind)];
  return [
    // A new object's status is the CRD's default until the controller acts on it.
    { name: 'new', object: { ...objectWith(kind, undefined), status: { observedGeneration: 0 } }, argoCd: 'Progressing', kstatus: 'InProgress', says: 'waiting for the controller' },
    { name: 'ready', object: objectWith(kind, healthy), argoCd: 'Healthy', kstatus: 'Current', says: healthy.reason },
    ...progress.map((reason) => ({ name: `not ready: ${reason}`, object: objectWith(kind, notReady(reason)), argoCd: 'Progressing', kstatus: 'InProgress', says: `${reason}: because of ${reason}` })),
    ...failures.map((reason) => ({ name: `failing: ${reason}`, object: objectWith(kind, notReady(reason)), argoCd: 'Degraded', kstatus: 'Failed', says: `${reason}: because of ${reason}` })),
    { name: 'ready, then changed', object: objectWith(kind, healthy, { generation: 4 }), argoCd: 'Progressing', kstatus: 'InProgress', says: 'generation 4 yet (last: 3)' },
    { name: 'failing, then changed', object: objectWith(kind, notReady(failures[0]), { generation: 4 }), argoCd: 'Progressing', kstatus: 'InProgress' },
    // The kind's own conditions (its conditionTypes) say nothing of its health: Ready does.
    ...(kind.controller?.conditionTypes?.length
      ? [
          { name: 'ready, its own conditions False', object: objectWith(kind, healthy, { own: ownConditions(kind.controller.conditionTypes, 'False') }), argoCd: 'Healthy', kstatus: 'Current' },
          { name: 'failing, its own conditions True', object: objectWith(kind, notReady(failures[0]), { own: ownConditions(kind.controller.conditionTypes, 'True') }), argoCd: 'Degraded', kstatus: 'Failed' },
        ]
      : []),
    { name: 'ready, being deleted', object: objectWith(kind, healthy, { deleting: true }), argoCd: 'Progressing', kstatus: 'Terminating', says: 'being deleted' },
    { name: 'being deleted, waiting for a last step', object: objectWith(kind, notReady('Finalizing'), { deleting: true }), argoCd: 'Progressing', kstatus: 'Terminating', says: 'being deleted; Finalizing' },
    { name: 'being deleted, failing', object: objectWith(kind, notReady(failures.at(-1)!), { deleting: true }), argoCd: 'Degraded', kstatus: 'Terminating' },
  ];
}

const verdicts = (states: State[], judged: Judgement[], tool: 'argoCd' | 'kstatus') =>
  states.map((state, i) => ({ state: state.name, [tool]: judged[i].error ?? judged[i].status, ...(tool === 'argoCd' && state.says && !judged[i].message?.includes(state.says) ? { message: judged[i].message } : {}) }));

describe('Argo CD health checks (dist/argocd/argocd-cm-health.yaml)', () => {
  const scripts = shippedHealthScripts();

  it('are what the kinds generate now, one per kind and group (run npm run synth when this fails)', () => {
    expect(readFileSync(SHIPPED_HEALTH, 'utf8')).toBe(argoCdHealthPatch(KINDS));
    expect([...scripts.keys()].sort()).toEqual(allIdentities(KINDS).map(healthKey).sort());
    expect(healthKey(KINDS.find((k) => k.kind === 'Database')!)).toBe('resource.customizations.health.stable.imaginedata.com_Database');
    expect(scripts.has('resource.customizations.health.stable.imaginedata.co_Database')).toBe(true);
    expect(scripts.has('resource.customizations.health.flant.com_CopyratorRule')).toBe(true);
  });

  it('leave out the check of an extra group the install leaves out', () => {
    expect(argoCdHealthPatch(KINDS, ['copyrators.flant.com'])).not.toContain('flant.com_CopyratorRule');
    expect(argoCdHealthPatch(KINDS, ['copyrators.flant.com'])).toContain('test.com_CopyratorRule');
  });

  it.each(allIdentities(KINDS).map((kind) => [crdName(kind), kind] as const))('%s: Argo CD (gopher-lua) and kstatus say what each state is', (_name, kind) => {
    const states = statesOf(kind);
    const expected = (tool: 'argoCd' | 'kstatus') => states.map((state) => ({ state: state.name, [tool]: state[tool] }));
    expect(verdicts(states, argoCdHealth(scripts.get(healthKey(kind))!, states.map((s) => s.object)), 'argoCd')).toEqual(expected('argoCd'));
    expect(verdicts(states, kstatus(states.map((s) => s.object)), 'kstatus')).toEqual(expected('kstatus'));
  });

  it('read Ready, not the conditions a kind adds of its own (the kubebuilder tutorial\u2019s Available, Progressing, Degraded)', () => {
    const guitar = KINDS.find((k) => k.kind === 'Guitar')!;
    const script = scripts.get(healthKey(guitar))!;
    const states = [
      objectWith(guitar, { status: 'True', reason: 'Reconciled', message: 'ready' }, { own: [...ownConditions(['Available'], 'False'), ...ownConditions(['Progressing', 'Degraded'], 'True')] }),
      objectWith(guitar, notReady('ChildNotReady'), { own: ownConditions(['Available', 'Degraded'], 'True') }),
    ];
    expect(argoCdHealth(script, states).map((j) => j.status)).toEqual(['Healthy', 'Progressing']);
    expect(kstatus(states).map((j) => j.status)).toEqual(['Current', 'InProgress']);
  });

  it('show a Database\u2019s phase in the message', () => {
    const database = KINDS.find((k) => k.kind === 'Database')!;
    const held = objectWith(database, notReady('Downgrade'), { kindStatus: { phase: 'Held' } });
    expect(argoCdHealth(scripts.get(healthKey(database))!, [held])).toEqual([{ status: 'Degraded', message: '(phase Held) Downgrade: because of Downgrade' }]);
  });

  it('say Progressing, not an error, for no status (a CRD without the status default), no conditions, or odd ones', () => {
    const guitar = KINDS.find((k) => k.kind === 'Guitar')!;
    const odd = [
      objectWith(guitar, undefined),
      { ...objectWith(guitar, undefined), status: {} },
      { ...objectWith(guitar, undefined), status: { observedGeneration: 3, conditions: [] } },
      { ...objectWith(guitar, undefined), status: { observedGeneration: 3, conditions: [{ type: 'Ready', status: 'Unknown' }] } },
    ];
    expect(argoCdHealth(scripts.get(healthKey(guitar))!, odd).map((j) => j.status)).toEqual(['Progressing', 'Progressing', 'Progressing', 'Progressing']);
  });
});

describe('Ready reasons', () => {
  /** The reasons a kind's own source names: `reason: '...'`, `ObservationError('...'`, and lists of reasons or failures. */
  function reasonsWritten(folder: string): Set<string> {
    const found = new Set<string>();
    const dir = join(root, 'src', 'kinds', folder);
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(join(dir, file), 'utf8');
      for (const [, word] of text.matchAll(/(?:[rR]eason: |ObservationError\()'([A-Z]\w+)'/g)) found.add(word);
      for (const [, list] of text.matchAll(/(?:REASONS|FAILURES|failureReasons)\b[^[\n]*\[([^\]]*)\]/g)) {
        for (const [, word] of list.matchAll(/'([A-Z]\w+)'/g)) found.add(word);
      }
    }
    return found;
  }

  it.each(KINDS.map((kind, i) => [kind.kind, kind, KIND_FOLDERS[i]] as const))('%s: every reason its code writes is classed as failure or progress', (_name, kind, folder) => {
    const classed = new Set([...failureReasons(kind), ...progressReasons(kind), kind.controller?.readyReason ?? 'Reconciled']);
    const written = [...reasonsWritten(folder)];
    expect(written.filter((reason) => !classed.has(reason))).toEqual([]);
    // And nothing classed that the code no longer writes.
    const own = [...classed].filter((r) => !(ENGINE_FAILURE_REASONS as readonly string[]).includes(r) && r !== 'Reconciled');
    expect(own.filter((reason) => !written.includes(reason))).toEqual([]);
  });
});
