import { ADOPT_EXISTING_ANNOTATION } from '../../src/core/kit/child-policy';
import { CustomResource } from '../../src/core/contract/kind';
import { validateResource } from '../../src/core/contract/validation';
import { previewChildren, renderChildren } from '../../src/core/render';
import { CURRENCIES, ExchangeRateSpec, exchangeRateKind } from '../../src/kinds/exchangerate';
import { sampleQuote } from '../../src/kinds/exchangerate/sample';

function exchangeRate(spec: Record<string, unknown>, name = 'usd'): CustomResource<ExchangeRateSpec> {
  const object = { apiVersion: 'operators.brennerm.github.io/v1', kind: 'ExchangeRate', metadata: { name, namespace: 'team-a' }, spec };
  const result = validateResource(exchangeRateKind, object);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return { ...object, spec: result.spec };
}

describe('ExchangeRate taken over from the original operator', () => {
  const withStatus = (configMapName: unknown, spec: Record<string, unknown> = { currency: 'USD' }) => ({ ...exchangeRate(spec), status: { on_create: { 'configmap-name': configMapName } } });

  it('also renders the ConfigMap status.on_create names, the same data, to be kept only while it exists', () => {
    const [ours, legacy, ...rest] = renderChildren(exchangeRateKind, withStatus('exchange-rate-usd-j98bc'), { rate: '1.0512', date: '2026-11-20' });
    expect(rest).toEqual([]);
    expect(ours.metadata.name).toBe('usd');
    expect(legacy.metadata).toMatchObject({ name: 'exchange-rate-usd-j98bc', namespace: 'team-a', annotations: { [ADOPT_EXISTING_ANNOTATION]: 'true' } });
    expect(legacy.data).toEqual(ours.data);
    expect(ours.metadata.annotations ?? {}).not.toHaveProperty([ADOPT_EXISTING_ANNOTATION]);
  });

  it.each([
    ['its own ConfigMap', 'usd-rate'],
    ['no ConfigMap name', 'Not A Name'],
    ['no string', 42],
  ])('renders nothing more when status names %s', (_what, name) => {
    expect(renderChildren(exchangeRateKind, withStatus(name, { currency: 'USD', configMapName: 'usd-rate' })).map((c) => c.metadata.name)).toEqual(['usd-rate']);
  });
});

describe('ExchangeRate children', () => {
  it('is one ConfigMap named after the ExchangeRate, with base and currency, in its namespace', () => {
    const [configMap, ...rest] = renderChildren(exchangeRateKind, exchangeRate({ currency: 'USD' }));
    expect(rest).toEqual([]);
    expect(configMap).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'usd', namespace: 'team-a' }, data: { base: 'EUR', currency: 'USD' } });
  });

  it('publishes the quote as the original did (rate as a string) plus the provider date', () => {
    const [configMap] = renderChildren(exchangeRateKind, exchangeRate({ currency: 'USD' }), { rate: '1.0512', date: '2026-11-20' });
    expect(configMap.data).toEqual({ base: 'EUR', currency: 'USD', rate: '1.0512', date: '2026-11-20' });
  });

  it('honours base and configMapName', () => {
    const [configMap] = renderChildren(exchangeRateKind, exchangeRate({ currency: 'JPY', base: 'USD', configMapName: 'yen' }));
    expect(configMap.metadata.name).toBe('yen');
    expect(configMap.data).toMatchObject({ base: 'USD', currency: 'JPY' });
  });

  it('labels the ConfigMap with its owner, even for a 253-character owner name', () => {
    const name = `${'a'.repeat(250)}-xy`;
    const [configMap] = renderChildren(exchangeRateKind, exchangeRate({ currency: 'USD' }, name));
    expect(configMap.metadata.name).toBe(name);
    const labels = configMap.metadata.labels!;
    expect(labels['app.kubernetes.io/managed-by']).toBe('cdk8s-operators');
    expect(labels['cdk8s-operators.io/owner-kind']).toBe('exchangerates.operators.brennerm.github.io');
    expect(labels['cdk8s-operators.io/owner-namespace']).toBe('team-a');
    for (const value of Object.values(labels)) expect(value).toMatch(/^[a-z0-9]([-a-z0-9_.]{0,61}[a-z0-9])?$/i);
  });

  it('defaults refreshInterval to 1h and base to EUR', () => {
    expect(exchangeRate({ currency: 'USD' }).spec).toEqual({ currency: 'USD', base: 'EUR', refreshInterval: '1h' });
  });

  it('renders the same output as the snapshot', () => {
    expect(renderChildren(exchangeRateKind, exchangeRate({ currency: 'CHF', refreshInterval: '15m' }), { rate: '0.93', date: '2026-11-20' })).toMatchSnapshot();
  });
});

describe('ExchangeRate preview (sample observation)', () => {
  it('publishes a plausible rate of the pair, on a fixed date', () => {
    const preview = previewChildren(exchangeRateKind, exchangeRate({ currency: 'USD' }), { withSample: true });
    expect(preview).toMatchObject({ ok: true, sampled: true, children: [{ kind: 'ConfigMap', data: { base: 'EUR', currency: 'USD', rate: '1.04', date: '2025-01-02' } }] });
    // The cross rate of two currencies, to 5 significant digits.
    expect(sampleQuote(exchangeRate({ currency: 'USD', base: 'GBP' }))).toEqual({ rate: '1.253', date: '2025-01-02' });
  });

  it('has a positive rate for every pair the schema accepts, and no fetch time (a preview has no clock)', () => {
    for (const base of CURRENCIES) {
      for (const currency of CURRENCIES.filter((c) => c !== base)) {
        const quote = sampleQuote(exchangeRate({ currency, base }));
        expect([`${base}/${currency}`, Number(quote.rate) > 0, Object.keys(quote)]).toEqual([`${base}/${currency}`, true, ['rate', 'date']]);
      }
    }
  });
});
