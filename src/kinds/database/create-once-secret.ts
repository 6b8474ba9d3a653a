import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { CREATE_ONLY_ANNOTATION } from './annotations';

/**
 * A Secret made once with values the observer generated and never changed (immutable, and
 * create-only for the controller): the first render's values are the ones that stay. `values`
 * are text, base64-encoded here into `data`, so they never show in `stringData`.
 */
export function createOnceSecret(scope: Construct, name: string, type: string, values: Record<string, string>): k8s.KubeSecret {
  return new k8s.KubeSecret(scope, 'secret', {
    metadata: { name, annotations: { [CREATE_ONLY_ANNOTATION]: 'true' } },
    type,
    immutable: true,
    data: Object.fromEntries(Object.entries(values).map(([key, value]) => [key, Buffer.from(value, 'utf8').toString('base64')])),
  });
}
