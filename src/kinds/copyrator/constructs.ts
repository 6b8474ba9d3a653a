import { KindConstructs } from '../../engine/kind';
import { CopyratorSpec } from './api';
import { Copies } from './copies';
import { CopyratorObservation } from './controller';
import { copyratorExample } from './example';

/** The CopyratorRule's constructs, loaded at their first use (see KindConstructs). */
export const copyratorConstructs: KindConstructs<CopyratorSpec, CopyratorObservation> = {
  example: copyratorExample,
  render: (scope, _rule, observation) => {
    if (observation) new Copies(scope, 'copies', observation);
  },
};
