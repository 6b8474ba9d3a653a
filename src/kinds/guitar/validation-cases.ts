import { ValidationCases } from '../../engine/kind';

/** Objects the API server and the controller must both accept, and both refuse naming the field (see ValidationCases). */
export const validationCases: ValidationCases = {
  valid: [
    { name: 'a brand', body: { spec: { brand: 'fender' } } },
    { name: 'a brand with odd case and blanks', body: { spec: { brand: '  Gibson ' } } },
    { name: 'the original operator\u2019s fields', body: { spec: { brand: 'squier', review: false, comment: 'first guitar' } } },
    { name: 'an unknown brand', body: { spec: { brand: 'harmony' } } },
  ],
  invalid: [
    { name: 'no brand', body: { spec: { review: true } }, field: 'spec.brand' },
    { name: 'a blank brand', body: { spec: { brand: '   ' } }, field: 'spec.brand' },
    { name: 'a number for the brand', body: { spec: { brand: 7 } }, field: 'spec.brand' },
    { name: 'a string for review', body: { spec: { brand: 'fender', review: 'yes' } }, field: 'spec.review' },
    { name: 'a brand longer than 63 characters', body: { spec: { brand: 'x'.repeat(64) } }, field: 'spec.brand' },
  ],
};
