import { KindController } from '../../engine/kind';
import { GuitarSpec, GuitarStatus } from './api';
import { reviewBrand } from './review';

/** A review is written to status, for the generation it was written for; a brand change gets a new one. */
export const guitarController: KindController<GuitarSpec, GuitarStatus, unknown> = {
  readyReason: 'Reviewed',
  status: (guitar) => ({ ...reviewBrand(guitar.spec.brand), reviewedGeneration: guitar.metadata.generation }),
};
