import { withoutEngineLabels } from '../../src/core/kit/names';
import { ACCEPT_FROM_ANNOTATION, COPIED_FROM_ANNOTATION } from '../../src/kinds/copyrator';
import { KubeObject } from '../../src/kube/objects';

type Copy = KubeObject & { data?: Record<string, string>; type?: string };

/**
 * What a cluster must hold for the controller to make the copies a preview shows (a
 * CopyratorRule's sample observation invents them): each copy's source, carrying its labels
 * and data, and the copy's namespace, accepting copies from the source's. Other children need nothing.
 */
export function worldOfSampledCopies(children: readonly KubeObject[]): KubeObject[] {
  return (children as readonly Copy[]).flatMap((copy) => {
    const from = copy.metadata.annotations?.[COPIED_FROM_ANNOTATION];
    if (!from) return [];
    const [namespace, name] = from.split('/');
    const target = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: copy.metadata.namespace!, annotations: { [ACCEPT_FROM_ANNOTATION]: namespace } } };
    const source = { apiVersion: 'v1', kind: copy.kind, metadata: { name, namespace, labels: withoutEngineLabels(copy.metadata.labels) }, ...(copy.data ? { data: copy.data } : {}), ...(copy.type ? { type: copy.type } : {}) };
    return [target, source] as KubeObject[];
  });
}
