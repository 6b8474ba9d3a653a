import { ApiObject } from 'cdk8s';
import { CREATE_ONLY_ANNOTATION } from '../../src/core/kit/child-policy';
import { childLabels, labelValue, MANAGED_BY_LABEL, OWNER_KIND_LABEL, OWNER_NAME_LABEL, OWNER_NAMESPACE_LABEL, ownerKindLabel, PART_OF_LABEL, CHILD_MANAGER } from '../../src/core/kit/names';
import { CustomResource } from '../../src/core/contract/kind';
import { ACCEPT_FROM_ANNOTATION, COPIED_FROM_ANNOTATION, copyratorKind } from '../../src/kinds/copyrator';
import { KubeObject } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { Controller } from '../../src/runtime/controller';
import { createLogger } from '../../src/runtime/log';
import { Metrics } from '../../src/runtime/metrics';
import { createTestNamespace, deleteNamespace, eventually, testKubeConfig } from '../../src/testing/cluster';
import { installCrds, testObjects } from '../support/manifests';
import { readyOf, Resource, whenReady } from '../support/resources';
import { namespaceEditor, NamespaceEditor } from '../support/tenancy';
import { childrenOf, defineTestKind, installTestCrd, TestSpec } from '../../src/testing/test-kind';
import { PRODUCT_NAMES } from '../../src/product';

/**
 * A kind whose one child is create-only credentials, as a Database's are: it never writes over
 * them once they exist, so whoever gets an object of that name accepted as its child picks them.
 */
const claimerKind = defineTestKind('Claimer', {
  manages: [childrenOf('', 'secrets')],
  render: (scope) => {
    new ApiObject(scope, 'credentials', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'credentials', annotations: { [CREATE_ONLY_ANNOTATION]: 'true' } },
      stringData: { password: 'made-by-the-claimer' },
    });
  },
});

const admin = testObjects();
const kc = testKubeConfig();
let source: string;
let target: string;
let attacker: NamespaceEditor;
let controllers: Controller[] = [];
const logLines: string[] = [];

beforeAll(async () => {
  await installCrds(admin);
  await installTestCrd(claimerKind);
  [source, target] = await Promise.all([createTestNamespace(kc, 'forged-source'), createTestNamespace(kc, 'forged-target')]);
  attacker = await namespaceEditor(admin, source);
  const log = createLogger({ level: 'info', write: (line) => void logLines.push(line) });
  const settings = { kinds: [copyratorKind, claimerKind], namespaces: [source, target], workers: 2, resyncMs: 600_000, kindOptions: { 'enable-secrets': true }, identity: 'forged-ownership', operator: PRODUCT_NAMES };
  controllers = [new Controller(new KubeRest(kc), settings, log, new Metrics({ prefix: PRODUCT_NAMES.metricPrefix }))];
  for (const controller of controllers) controller.start();
}, 120_000);

afterAll(async () => {
  await Promise.all(controllers.map((controller) => controller.stop()));
  await Promise.all([source, target].filter(Boolean).map((ns) => deleteNamespace(kc, ns)));
});

describe('a source labelled as another owner\u2019s child', () => {
  it('is copied without those labels, and the copy is not taken by that owner as its create-only credentials', async () => {
    const victim = { apiVersion: 'claimer.test.cdk8s-operators.io/v1', kind: 'Claimer', metadata: { name: 'victim', namespace: target }, spec: { size: 1 } };
    // The attacker edits only the source namespace: it labels a Secret there as the victim's credentials.
    const forged = { [MANAGED_BY_LABEL]: CHILD_MANAGER, [PART_OF_LABEL]: CHILD_MANAGER, [OWNER_KIND_LABEL]: labelValue(ownerKindLabel(claimerKind)), [OWNER_NAME_LABEL]: 'victim', [OWNER_NAMESPACE_LABEL]: target };
    expect(forged).toEqual(childLabels(claimerKind, victim as CustomResource<TestSpec>));
    await attacker.objects.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'credentials', namespace: source, labels: { copyrator: 'true', team: 'a', ...forged } },
      stringData: { password: 'known-to-the-attacker' },
    } as KubeObject);

    // The target namespace accepts copies from the source's rules (its administrator's consent).
    await admin.rest.request('PATCH', `/api/v1/namespaces/${target}`, { body: { metadata: { annotations: { [ACCEPT_FROM_ANNOTATION]: source } } }, contentType: 'application/merge-patch+json' });
    const rule = { apiVersion: 'test.com/v2', kind: 'CopyratorRule', metadata: { name: 'share', namespace: source }, spec: { ruleType: 'secret', selector: { copyrator: 'true' }, targetNamespaces: [target] } };
    await admin.apply(rule as KubeObject);
    await whenReady(admin, rule, 'True', 'Copied');
    const copyRef = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'credentials', namespace: target } };
    const copy = await admin.get<KubeObject>(copyRef);
    expect(copy.metadata.labels).toEqual({ copyrator: 'true', team: 'a', ...childLabels(copyratorKind, rule as CustomResource) });

    // The victim comes later and finds an object of its credentials' name that is not its own: a
    // conflict, never its credentials. (It also takes the attacker's source, labelled as its child,
    // for a stale one and removes it; the rule then removes its copy, and the victim makes its own.)
    await admin.apply(victim as KubeObject);
    const own = await eventually('the victim to make credentials of its own', async () => {
      const live = await admin.get<KubeObject & { data?: Record<string, string> }>(copyRef);
      return readyOf(await admin.get<Resource>(victim))?.status === 'True' && live.metadata.labels?.[OWNER_KIND_LABEL] === forged[OWNER_KIND_LABEL] ? live : undefined;
    });
    expect(Buffer.from(own.data!.password, 'base64').toString()).toBe('made-by-the-claimer');
    expect(own.metadata.labels).toEqual(childLabels(claimerKind, victim as CustomResource<TestSpec>));
    expect(own.metadata.annotations).not.toHaveProperty(COPIED_FROM_ANNOTATION);
    const warnings = logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.kind === 'Claimer' && line.msg === 'left alone objects this resource does not manage');
    expect(warnings[0]).toMatchObject({ conflicts: [`Secret ${target}/credentials`] });
  }, 120_000);
});
