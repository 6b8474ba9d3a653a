import { Metrics } from '../../src/runtime/metrics';

describe('Metrics', () => {
  it('renders a small registry exactly, families by name and series by label values', () => {
    const metrics = new Metrics();
    const reconciles = metrics.counter('reconcile_total', 'Reconciles by kind and result.', ['kind', 'result']);
    const depth = metrics.gauge('workqueue_depth', 'Items waiting in the queue.');
    const duration = metrics.histogram('reconcile_duration_seconds', 'How long a reconcile took.', ['kind'], [0.1, 1]);
    reconciles.inc({ kind: 'Guitar', result: 'success' });
    reconciles.inc({ kind: 'Database', result: 'error' }, 2);
    reconciles.inc({ result: 'success', kind: 'Database' });
    depth.set(undefined, 5);
    depth.inc();
    depth.dec(undefined, 3);
    duration.observe({ kind: 'Database' }, 0.05);
    duration.observe({ kind: 'Database' }, 0.1);
    duration.observe({ kind: 'Database' }, 0.5);
    duration.observe({ kind: 'Database' }, 3);
    expect(metrics.render()).toBe(
      [
        '# HELP reconcile_duration_seconds How long a reconcile took.',
        '# TYPE reconcile_duration_seconds histogram',
        'reconcile_duration_seconds_bucket{kind="Database",le="0.1"} 2',
        'reconcile_duration_seconds_bucket{kind="Database",le="1"} 3',
        'reconcile_duration_seconds_bucket{kind="Database",le="+Inf"} 4',
        'reconcile_duration_seconds_sum{kind="Database"} 3.65',
        'reconcile_duration_seconds_count{kind="Database"} 4',
        '# HELP reconcile_total Reconciles by kind and result.',
        '# TYPE reconcile_total counter',
        'reconcile_total{kind="Database",result="error"} 2',
        'reconcile_total{kind="Database",result="success"} 1',
        'reconcile_total{kind="Guitar",result="success"} 1',
        '# HELP workqueue_depth Items waiting in the queue.',
        '# TYPE workqueue_depth gauge',
        'workqueue_depth 3',
        '',
      ].join('\n'),
    );
  });

  it('shows a metric without labels as 0 before anything happened, and one with labels without series', () => {
    const metrics = new Metrics();
    metrics.counter('errors_total', 'Errors.');
    metrics.counter('by_kind_total', 'By kind.', ['kind']);
    metrics.histogram('wait_seconds', 'Wait.', [], [1]);
    expect(metrics.render()).toBe(
      [
        '# HELP by_kind_total By kind.',
        '# TYPE by_kind_total counter',
        '# HELP errors_total Errors.',
        '# TYPE errors_total counter',
        'errors_total 0',
        '# HELP wait_seconds Wait.',
        '# TYPE wait_seconds histogram',
        'wait_seconds_bucket{le="1"} 0',
        'wait_seconds_bucket{le="+Inf"} 0',
        'wait_seconds_sum 0',
        'wait_seconds_count 0',
        '',
      ].join('\n'),
    );
    expect(new Metrics().render()).toBe('');
  });

  it('escapes label values (backslash, quote, newline) and help text (backslash, newline)', () => {
    const metrics = new Metrics();
    metrics.counter('odd_total', 'Line one\nback\\slash "quoted"', ['value']).inc({ value: 'a\\b"c"\nd' });
    expect(metrics.render()).toBe(
      ['# HELP odd_total Line one\\nback\\\\slash "quoted"', '# TYPE odd_total counter', 'odd_total{value="a\\\\b\\"c\\"\\nd"} 1', ''].join('\n'),
    );
  });

  it('uses the default buckets, puts a value on a bound into that bucket, and writes special values', () => {
    const metrics = new Metrics();
    const h = metrics.histogram('api_seconds', 'API calls.');
    h.observe(undefined, 0.005);
    h.observe(undefined, 11);
    const g = metrics.gauge('g', 'G.', ['x']);
    g.set({ x: 'inf' }, Infinity);
    g.set({ x: 'minus' }, -Infinity);
    g.set({ x: 'nan' }, NaN);
    g.set({ x: 'small' }, -0.25);
    const text = metrics.render();
    expect(text).toContain('api_seconds_bucket{le="0.005"} 1\napi_seconds_bucket{le="0.01"} 1\n');
    expect(text).toContain('api_seconds_bucket{le="10"} 1\napi_seconds_bucket{le="+Inf"} 2\napi_seconds_sum 11.005\napi_seconds_count 2\n');
    expect(text.match(/api_seconds_bucket/g)).toHaveLength(12);
    expect(text).toContain('g{x="inf"} +Inf\ng{x="minus"} -Inf\ng{x="nan"} NaN\ng{x="small"} -0.25\n');
  });

  it('returns the same instrument when registered again with the same shape', () => {
    const metrics = new Metrics();
    const a = metrics.counter('c_total', 'C.', ['kind']);
    const b = metrics.counter('c_total', 'C.', ['kind']);
    expect(b).toBe(a);
    a.inc({ kind: 'x' });
    b.inc({ kind: 'x' });
    expect(metrics.render()).toContain('c_total{kind="x"} 2');
    const h = metrics.histogram('h', 'H.', [], [1, 2]);
    expect(metrics.histogram('h', 'H.', [], [1, 2, Infinity])).toBe(h);
  });

  it('throws a clear error for a conflicting registration', () => {
    const metrics = new Metrics();
    metrics.counter('c_total', 'C.', ['kind']);
    metrics.histogram('h', 'H.', [], [1, 2]);
    expect(() => metrics.gauge('c_total', 'C.', ['kind'])).toThrow(
      'metric c_total is already registered as a counter with labels [kind]; cannot register it again as a gauge with labels [kind]',
    );
    expect(() => metrics.counter('c_total', 'C.', ['name'])).toThrow('metric c_total is already registered as a counter with labels [kind]; cannot register it again as a counter with labels [name]');
    expect(() => metrics.histogram('h', 'H.', [], [1, 3])).toThrow('(or the buckets differ)');
  });

  it('rejects bad names, labels, buckets and decrements of a counter', () => {
    const metrics = new Metrics();
    expect(() => metrics.counter('1bad', 'x')).toThrow('metric name "1bad" is not valid: expected [a-zA-Z_:][a-zA-Z0-9_:]*');
    expect(() => metrics.counter('ok', 'x', ['bad-label'])).toThrow('metric ok: label name "bad-label" is not valid');
    expect(() => metrics.counter('ok', 'x', ['__reserved'])).toThrow('not starting with __');
    expect(() => metrics.counter('ok', 'x', ['a', 'a'])).toThrow('metric ok: label names repeat: [a, a]');
    expect(() => metrics.histogram('h', 'x', ['le'])).toThrow('metric h: "le" is reserved for histogram buckets');
    expect(() => metrics.histogram('h', 'x', [], [1, 0.5])).toThrow('metric h: buckets must be finite and strictly increasing, got [1, 0.5]');
    const c = metrics.counter('c_total', 'C.', ['kind']);
    expect(() => c.inc({ kind: 'x' }, -1)).toThrow('metric c_total: a counter can only increase, got inc by -1');
    expect(() => c.inc()).toThrow('metric c_total: expected labels [kind], got []');
    expect(() => c.inc({ kind: 'x', extra: 'y' })).toThrow('metric c_total: expected labels [kind], got [kind, extra]');
  });

  it('names the engine\u2019s metrics after the operator, and refuses to name one without its prefix', () => {
    expect(new Metrics({ prefix: 'acme_operators_' }).named('workqueue_depth')).toBe('acme_operators_workqueue_depth');
    expect(() => new Metrics().named('workqueue_depth')).toThrow('metric workqueue_depth: the registry has no operator prefix');
  });
});
