import { OperatorIdentity, operatorNames } from './engine/operator';

/** This repository's operator: the one place its name, namespace and image are written (docs/building-an-operator.md#operator-identity). */
export const PRODUCT_IDENTITY: OperatorIdentity = {
  name: 'cdk8s-operators',
  namespace: 'cdk8s-operators',
  imageRepository: 'cdk8s-operators/controller',
};

export const PRODUCT_NAMES = operatorNames(PRODUCT_IDENTITY);
