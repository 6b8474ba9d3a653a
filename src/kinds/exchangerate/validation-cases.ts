import { ValidationCases } from '../../engine/kind';

/** Objects the API server and the controller must both accept, and both refuse naming the field (see ValidationCases). */
export const validationCases: ValidationCases = {
  valid: [
    { name: 'only the currency', body: { spec: { currency: 'USD' } } },
    { name: 'every field', body: { spec: { currency: 'JPY', base: 'USD', refreshInterval: '1h30m', configMapName: 'yen.rate' } } },
    { name: 'a currency beyond the original six', body: { spec: { currency: 'SEK' } } },
  ],
  invalid: [
    { name: 'no currency', body: { spec: { base: 'EUR' } }, field: 'spec.currency' },
    { name: 'an unknown currency', body: { spec: { currency: 'XYZ' } }, field: 'spec.currency' },
    { name: 'a lower-case currency', body: { spec: { currency: 'usd' } }, field: 'spec.currency' },
    { name: 'a number for the currency', body: { spec: { currency: 42 } }, field: 'spec.currency' },
    { name: 'base equal to currency', body: { spec: { currency: 'EUR' } }, field: 'spec.currency' },
    { name: 'an interval that is no duration', body: { spec: { currency: 'USD', refreshInterval: 'hourly' } }, field: 'spec.refreshInterval' },
    { name: 'an interval below a minute', body: { spec: { currency: 'USD', refreshInterval: '30s' } }, field: 'spec.refreshInterval' },
    { name: 'a ConfigMap name with capitals', body: { spec: { currency: 'USD', configMapName: 'Rates' } }, field: 'spec.configMapName' },
    { name: 'no spec at all', body: {}, field: 'spec' },
  ],
};
