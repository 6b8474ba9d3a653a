import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { declareResource } from '../../engine/constructs';
import { copyratorSpec } from './api';
import { copyratorKind } from '.';

/** Copies every ConfigMap labelled copyrator: "true" in the examples namespace into every namespace that accepts copies from it (docs/kinds/copyrator.md). */
export function copyratorExample(scope: Construct, namespace: string): ApiObject {
  return declareResource(scope, copyratorKind, copyratorSpec, {
    metadata: { name: 'shared-config', namespace },
    spec: { ruleType: 'configmap', selector: { copyrator: 'true' } },
  });
}
