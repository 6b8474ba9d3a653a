import * as k8s from '@kubernetes/client-node';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { uiRules } from '../../src/ui/install';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { startControlPlane, stopControlPlane } from '../../src/testing/controlplane/controlplane';
import { eventually } from '../../src/testing/cluster';
import { loadYaml } from '../support/manifests';
import { apiServerKubeconfig, launchChromium, serviceAccountKubeconfig, signIn, startCommand, startUi, tempDir, tokenFor } from './support';

/**
 * Refreshes docs/ui.png, docs/kinds/guitar.md's picture of the UI (`npm run ui:screenshot`): a private
 * control plane, the controller, the UI and Chromium, all on 127.0.0.1, all stopped at the end.
 */
async function main(): Promise<void> {
  // Compiled into lib/test/ui/: the checkout is three levels up.
  const root = join(__dirname, '..', '..', '..');
  const out = join(root, 'docs', 'ui.png');
  const dir = tempDir('ui-screenshot');
  const plane = await startControlPlane(dir);
  const stops: (() => Promise<unknown>)[] = [() => stopControlPlane(dir)];
  try {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(plane.kubeconfig);
    const objects = new ObjectClient(new KubeRest(kc), 'screenshot');
    for (const crd of loadYaml(join(root, 'dist', '0-crds.k8s.yaml'))) await objects.apply(crd);
    const ns = 'band';
    await objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await eventually('the Guitar CRD to be served', () => objects.rest.request('GET', `/apis/kool.karmalabs.local/v1/namespaces/${ns}/guitars`));
    const controller = startCommand('controller', ['--kubeconfig', plane.kubeconfig, '--kinds', 'guitars', '--leader-election=false', '--http-port', '0', '--metrics-port', '0'], join(dir, 'controller.log'));
    stops.unshift(() => controller.stop());
    await eventually('the ServiceAccount admission to be ready', () => objects.get({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: ns } }));
    // A guitarist with exactly the guitar rights, whose token signs in to the UI (which holds none).
    await serviceAccountKubeconfig(objects, kc, ns, 'guitarist', uiRules('service-account'), dir);
    const token = await tokenFor(objects, ns, 'guitarist');
    const ui = await startUi(['--kubeconfig', apiServerKubeconfig(kc, dir), '--namespace', ns], join(dir, 'ui.log'));
    stops.unshift(() => ui.stop());
    for (const [name, brand] of [['les-paul', 'Gibson'], ['pacifica', 'Yamaha'], ['stratocaster', 'Fender'], ['homemade', 'Kitchen Table']]) {
      await objects.create({ apiVersion: 'kool.karmalabs.local/v1', kind: 'Guitar', metadata: { name, namespace: ns }, spec: { brand } });
    }
    await eventually('every review', async () => {
      const list = await objects.rest.request<{ items: (KubeObject & { status?: { verdict?: string } })[] }>('GET', `/apis/kool.karmalabs.local/v1/namespaces/${ns}/guitars`);
      return list.items.every((g) => g.status?.verdict) ? true : undefined;
    });
    const browser = await launchChromium();
    stops.unshift(() => browser.close());
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1000, height: 760 });
    await signIn(page, ui.url, token);
    await page.fill('#name', 'Bad Name');
    await page.fill('#brand', 'Ibanez');
    await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('#add-form button[type=submit]')]);
    mkdirSync(join(out, '..'), { recursive: true });
    await page.screenshot({ path: out, fullPage: true });
    console.log(`wrote ${out}`);
  } finally {
    for (const stop of stops) await stop().catch((err) => console.error(err));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
