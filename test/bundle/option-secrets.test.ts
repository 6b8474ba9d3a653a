import { join } from 'node:path';
import { App, Chart, Testing } from 'cdk8s';
import { OperatorBundle } from '../../src/bundle/operator';
import { CONTROLLER_OPTIONS_SECRET } from '../../src/core/contract/options';
import { KINDS } from '../../src/kinds';
import { helmBinary } from '../helm/helm';
import { toolsBeforeAll } from '../support/go-tool';
import { DIST, loadHelmTemplate, loadYaml } from '../support/manifests';
import { PRODUCT_NAMES } from '../../src/product';

toolsBeforeAll(helmBinary);

type Env = { name: string; value?: string; valueFrom?: Record<string, unknown> };
type Deployment = { kind: string; metadata: { name: string }; spec: { template: { spec: { containers: { args: string[]; env: Env[] }[] } } } };

/** The controller container of the Deployment among `objects`. */
function controller(objects: readonly unknown[]): { args: string[]; env: Env[] } {
  const deployment = (objects as Deployment[]).find((o) => o.kind === 'Deployment' && o.metadata.name === 'controller');
  return deployment!.spec.template.spec.containers[0];
}

const FROM_SECRET: Env = { name: 'EXCHANGE_RATE_URL', valueFrom: { secretKeyRef: { name: CONTROLLER_OPTIONS_SECRET, key: 'exchange-rate-url', optional: true } } };

describe('the controller Deployment and the rate provider URL (which may carry an API key)', () => {
  it('takes it from a key of the controller-options Secret, and holds no URL in clear', () => {
    const chart = new Chart(Testing.app() as App, 'test', { disableResourceNameHashes: true });
    new OperatorBundle(chart, 'operator', { operator: PRODUCT_NAMES, kinds: KINDS });
    const container = controller(chart.toJson());
    expect(container.env).toContainEqual(FROM_SECRET);
    expect(container.env.filter((e) => e.value !== undefined)).toEqual([]);
    expect(JSON.stringify(container)).not.toMatch(/https?:/);
  });

  it('is taken from the same Secret by the synthesized bundle and the Helm chart', () => {
    for (const objects of [loadYaml(join(DIST, '1-operator.k8s.yaml')), loadHelmTemplate(join(DIST, 'helm/templates/1-operator.k8s.yaml'))]) {
      const container = controller(objects);
      expect(container.env).toContainEqual(FROM_SECRET);
      expect(JSON.stringify(container)).not.toMatch(/https?:/);
    }
  });
});
