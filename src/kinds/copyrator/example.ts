import { Construct } from 'constructs';
import { CopyratorRule, CopyratorRuleSpecRuleType } from '../../../imports/test.com';

/** Copies every ConfigMap labelled copyrator: "true" in the examples namespace into every other namespace. */
export function copyratorExample(scope: Construct, namespace: string): CopyratorRule {
  return new CopyratorRule(scope, 'shared-config', {
    metadata: { name: 'shared-config', namespace },
    spec: { ruleType: CopyratorRuleSpecRuleType.CONFIGMAP, selector: { copyrator: 'true' } },
  });
}
