import { KindConstructs } from '../../engine/kind';
import { GuitarSpec } from './api';
import { guitarExample } from './example';

/** The Guitar's constructs, loaded at their first use (see KindConstructs). */
export const guitarConstructs: KindConstructs<GuitarSpec> = {
  example: guitarExample,
  render: () => {
    // A review is status only; there is nothing to create.
  },
};
