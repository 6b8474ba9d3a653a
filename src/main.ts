import { App, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import * as kplus from 'cdk8s-plus-27';

/** The namespace the operator is installed into. */
export const OPERATOR_NAMESPACE = 'cdk8s-operators';

/** The operator's install bundle. The kinds and the controller arrive with their own issues. */
export class OperatorChart extends Chart {
  constructor(scope: Construct, id: string) {
    super(scope, id, { disableResourceNameHashes: true });
    new kplus.Namespace(this, 'namespace', {
      metadata: {
        name: OPERATOR_NAMESPACE,
        labels: { 'pod-security.kubernetes.io/enforce': 'restricted' },
      },
    });
  }
}

if (require.main === module) {
  const app = new App();
  new OperatorChart(app, 'cdk8s-operators');
  app.synth();
}
