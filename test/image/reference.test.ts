import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { KubeObject } from '../../src/kube/objects';
import { CONTROLLER_IMAGE_REPOSITORY, controllerImage } from '../../src/bundle/version';
import { projectVersion } from '../../src/core/version';
import { DIST, loadHelmTemplate, loadYaml } from '../support/manifests';

const version = (JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
type Deployment = KubeObject & { spec: { template: { spec: { containers: { name: string; image: string }[] } } } };
const controllerImageIn = (objects: KubeObject[]) =>
  (objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'controller') as Deployment).spec.template.spec.containers.find((c) => c.name === 'controller')!.image;

describe('the controller image reference', () => {
  it('is the project version from package.json', () => {
    expect(projectVersion()).toBe(version);
    expect(controllerImage()).toBe(`${CONTROLLER_IMAGE_REPOSITORY}:${version}`);
  });

  it('is what dist/\u2019s Deployment runs', () => {
    expect(controllerImageIn(loadYaml(join(DIST, '1-operator.k8s.yaml')))).toBe(`cdk8s-operators/controller:${version}`);
  });

  it('comes from the Helm chart\u2019s values, whose defaults give the same reference', () => {
    const chart = join(DIST, 'helm');
    expect(parse(readFileSync(join(chart, 'values.yaml'), 'utf8'))).toMatchObject({ image: { repository: 'cdk8s-operators/controller', tag: '' } });
    expect(parse(readFileSync(join(chart, 'Chart.yaml'), 'utf8'))).toMatchObject({ version, appVersion: version });
    expect(readFileSync(join(chart, 'templates', '1-operator.k8s.yaml'), 'utf8')).toContain('image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"');
    expect(controllerImageIn(loadHelmTemplate(join(chart, 'templates', '1-operator.k8s.yaml')))).toBe(`cdk8s-operators/controller:${version}`);
  });
});
