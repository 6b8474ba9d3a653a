import { ApiObject } from 'cdk8s';
import { KubeObject } from '../../src/kube/objects';
import { eventually } from '../../src/testing/cluster';
import { eventsIn, whenReady } from '../support/resources';
import { childrenOf, defineTestKind, serveTestKindForSuite } from '../../src/testing/test-kind';

const PASSWORD = 'rendered-password-value';

/**
 * A kind whose Secret child the API server stores differently from its render: `stringData`
 * is written into `data` and never stored, so the engine tells of the rewrite in an Event.
 */
const secretKind = defineTestKind('SecretHolder', {
  manages: [childrenOf('', 'secrets')],
  render: (scope, resource) => {
    new ApiObject(scope, 'secret', { apiVersion: 'v1', kind: 'Secret', metadata: { name: resource.metadata.name }, stringData: { password: PASSWORD } });
  },
});

describe('a Secret child the API server rewrites, served by the real engine', () => {
  const served = serveTestKindForSuite(secretKind, 'secret-events');

  it('is told of in a RenderRewritten Event that names the fields only, never their values; the log holds none either', async () => {
    const owner = { apiVersion: 'secretholder.test.cdk8s-operators.io/v1', kind: 'SecretHolder', metadata: { name: 'holder', namespace: served.namespace }, spec: { size: 1 } };
    await served.objects.apply(owner as KubeObject);
    await whenReady(served.objects, owner, 'True');
    const [event] = await eventually('the RenderRewritten Warning', async () => {
      const found = (await eventsIn(served.objects, served.namespace)).filter((e) => e.reason === 'RenderRewritten');
      return found.length ? found : undefined;
    });
    expect(event.note).toBe(`the API server stored Secret ${served.namespace}/holder differently from its render: stringData; it is not applied again until the render changes`);
    const everything = JSON.stringify(served.logLines);
    for (const text of [event.note, everything]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(Buffer.from(PASSWORD).toString('base64'));
    }
    expect(served.logLines.find((line) => line.msg === 'the API server rewrote a rendered child')).toMatchObject({ fields: ['stringData'] });
  });
});
