import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { withoutEngineLabels } from '../../engine/kind';
import { COPIED_FROM_ANNOTATION, isCopyable, NOT_COPIED_ANNOTATIONS, SourceObject } from './sources';

export interface CopiesProps {
  /** The matching source objects. */
  readonly sources: readonly SourceObject[];
  /** The namespaces to copy into. */
  readonly targets: readonly string[];
}

/**
 * Every copyable source in every target namespace: data, type, labels and annotations, none of
 * the source's identity, nor the engine's labels it may carry (a source labelled as another
 * owner's child would make a copy that owner claims as its own).
 */
export class Copies extends Construct {
  constructor(scope: Construct, id: string, props: CopiesProps) {
    super(scope, id);
    for (const source of props.sources.filter(isCopyable)) {
      const { name, namespace, labels = {}, annotations = {} } = source.metadata;
      const keptAnnotations = Object.fromEntries(Object.entries(annotations).filter(([key]) => !NOT_COPIED_ANNOTATIONS.has(key)));
      for (const target of props.targets) {
        new ApiObject(this, `${target}/${source.kind}/${name}`, {
          apiVersion: 'v1',
          kind: source.kind,
          metadata: { name, namespace: target, labels: withoutEngineLabels(labels), annotations: { ...keptAnnotations, [COPIED_FROM_ANNOTATION]: `${namespace}/${name}` } },
          ...(source.data ? { data: source.data } : {}),
          ...(source.binaryData ? { binaryData: source.binaryData } : {}),
          ...(source.stringData ? { stringData: source.stringData } : {}),
          ...(source.type ? { type: source.type } : {}),
          ...(source.immutable !== undefined ? { immutable: source.immutable } : {}),
        });
      }
    }
  }
}
