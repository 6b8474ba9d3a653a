import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { KubeObject } from '../../src/kube/objects';
import { controllerImage } from '../../src/bundle/version';
import { projectVersion } from '../../src/core/install/version';
import { helmBinary } from '../helm/helm';
import { toolsBeforeAll } from '../support/go-tool';
import { DIST, loadHelmTemplate, loadYaml } from '../support/manifests';
import { App } from 'cdk8s';
import { buildApp, loadFromEnvironment, operatorChart } from '../../src/app';
import { KINDS } from '../../src/kinds';
import { IMAGE_EXPRESSION, operatorTemplate } from '../../src/gitops/helm/operator-template';
import { PRODUCT_IDENTITY } from '../../src/product';

toolsBeforeAll(helmBinary);

const version = (JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
type Deployment = KubeObject & { spec: { template: { spec: { containers: { name: string; image: string }[] } } } };
const controllerImageIn = (objects: KubeObject[]) =>
  (objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'controller') as Deployment).spec.template.spec.containers.find((c) => c.name === 'controller')!.image;

describe('the controller image reference', () => {
  it('is the project version from package.json', () => {
    expect(projectVersion()).toBe(version);
    expect(controllerImage(PRODUCT_IDENTITY)).toBe(`${PRODUCT_IDENTITY.imageRepository}:${version}`);
  });

  it('is what dist/\u2019s Deployment runs', () => {
    expect(controllerImageIn(loadYaml(join(DIST, '1-operator.k8s.yaml')))).toBe(`cdk8s-operators/controller:${version}`);
  });

  it('comes from the Helm chart\u2019s values, whose defaults give the same reference', () => {
    const chart = join(DIST, 'helm');
    expect(parse(readFileSync(join(chart, 'values.yaml'), 'utf8'))).toMatchObject({ image: { repository: 'cdk8s-operators/controller', tag: '', digest: '' } });
    expect(parse(readFileSync(join(chart, 'Chart.yaml'), 'utf8'))).toMatchObject({ version, appVersion: version });
    expect(readFileSync(join(chart, 'templates', '1-operator.k8s.yaml'), 'utf8')).toContain(`image: "${IMAGE_EXPRESSION}"`);
    expect(controllerImageIn(loadHelmTemplate(join(chart, 'templates', '1-operator.k8s.yaml')))).toBe(`cdk8s-operators/controller:${version}`);
  });
});

describe('the controller image pinned by digest (synth --controller-digest)', () => {
  const digest = `sha256:${'ab'.repeat(32)}`;
  const pinned = `cdk8s-operators/controller:${version}@${digest}`;
  const deploymentImages = (objects: KubeObject[]) =>
    (objects.filter((o) => o.kind === 'Deployment') as Deployment[]).flatMap((d) => d.spec.template.spec.containers.map((c) => `${d.metadata.name}: ${c.image}`));

  it('runs both Deployments (the controller and the guitar UI) by the digest, the tag kept for readers', () => {
    const [, operator] = buildApp(new App(), loadFromEnvironment({}, ['--controller-digest', digest])).map((chart) => chart.toJson() as KubeObject[]);
    expect(deploymentImages(operator)).toEqual([`controller: ${pinned}`, `guitar-ui: ${pinned}`]);
  });

  it('gives the Helm chart the digest as the default of image.digest, and the chart runs repository:tag@digest', () => {
    const { template, defaults } = operatorTemplate(operatorChart, KINDS, { sharding: false, extraImages: [], withoutExtraGroups: [], webhookCertificates: 'self', image: pinned }, version);
    expect(defaults.image).toEqual({ repository: 'cdk8s-operators/controller', tag: '', digest, pullPolicy: 'IfNotPresent' });
    expect(template).toContain(`image: "${IMAGE_EXPRESSION}"`);
    expect(template).not.toContain(digest);
  });

  it('refuses a value that is no sha256 digest, naming the flag, before anything is written', () => {
    for (const bad of ['sha256:abc', `sha512:${'ab'.repeat(64)}`, `SHA256:${'AB'.repeat(32)}`, `cdk8s-operators/controller@${digest}`]) {
      expect(() => loadFromEnvironment({}, ['--controller-digest', bad])).toThrow(`--controller-digest: expected sha256:<64 lowercase hex digits> (npm run image prints the digest), got '${bad}'`);
    }
  });
});
