import { operatorNames } from '../engine/operator';

/**
 * The operator a served test kind runs as, unless its settings name another: the engine's own
 * tests read its field managers and metrics (`cdk8s_operators_reconciles_total`) by these names.
 */
export const TEST_OPERATOR = operatorNames({ name: 'cdk8s-operators', namespace: 'cdk8s-operators', imageRepository: 'cdk8s-operators/controller' });
