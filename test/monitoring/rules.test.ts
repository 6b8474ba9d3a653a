import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Yaml } from 'cdk8s';
import { KINDS } from '../../src/kinds';
import { PrometheusAlert, ruleGroups, runbookAnchor } from '../../src/monitoring/rules';
import { DIST } from '../support/manifests';
import { AlertCase, ALERT_CASES } from './alert-cases';
import { PRODUCT_NAMES } from '../../src/product';

const groups = ruleGroups(KINDS, PRODUCT_NAMES);
const alerts = groups.flatMap((g) => g.rules);
const dir = mkdtempSync(join(tmpdir(), 'rules-'));

function promtool(...args: string[]): string {
  try {
    return execFileSync('promtool', args, { encoding: 'utf8', stdio: 'pipe' });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`promtool ${args.join(' ')} failed:\n${e.stdout ?? ''}${e.stderr ?? e.message}`);
  }
}

/** The annotations as Prometheus renders them for the case's labels and value. */
function rendered(rule: PrometheusAlert, c: AlertCase): Record<string, string> {
  const fill = (text: string) =>
    text.replace(/\{\{ \$labels\.(\w+) \}\}/g, (_, label: string) => c.labels![label] ?? '').replace(/\{\{ \$value[^}]* \}\}/g, () => {
      if (c.value === undefined) throw new Error(`the case of ${rule.alert} needs the value its description shows`);
      return c.value;
    });
  return { summary: rule.annotations.summary, description: fill(rule.annotations.description), runbook_url: rule.annotations.runbook_url };
}

function unitTest(rule: PrometheusAlert, c: AlertCase) {
  return {
    interval: '1m',
    input_series: Object.entries(c.series).map(([series, values]) => ({ series, values })),
    alert_rule_test: [
      {
        eval_time: c.at,
        alertname: rule.alert,
        exp_alerts: c.labels ? [{ exp_labels: { severity: rule.labels.severity, ...c.labels }, exp_annotations: rendered(rule, c) }] : [],
      },
    ],
  };
}

describe('the shipped alerting rules', () => {
  it('are what dist/monitoring/ holds, and promtool finds them valid', () => {
    const shipped = readFileSync(join(DIST, 'monitoring', 'rules.yaml'), 'utf8');
    expect(Yaml.load(join(DIST, 'monitoring', 'rules.yaml'))[0]).toEqual(JSON.parse(JSON.stringify({ groups })));
    expect(shipped).toContain('cdk8s-operators.engine');
    expect(promtool('check', 'rules', join(DIST, 'monitoring', 'rules.yaml'))).toMatch(`SUCCESS: ${alerts.length} rules found`);
  });

  it('have a unit test each, and no test names an alert that is gone', () => {
    expect(Object.keys(ALERT_CASES).sort()).toEqual(alerts.map((a) => a.alert).sort());
  });

  it('each summarize, name the object or controller, say how urgent and link a runbook section that exists', () => {
    const docs = readFileSync(join(__dirname, '..', '..', 'docs', 'monitoring.md'), 'utf8');
    for (const rule of alerts) {
      expect(rule.annotations.summary).toMatch(/\.$/);
      expect(['critical', 'warning', 'info']).toContain(rule.labels.severity);
      expect(rule.annotations.runbook_url).toBe(`docs/monitoring.md#${runbookAnchor(rule.alert)}`);
      expect(docs).toContain(`\n### ${rule.alert}\n`);
    }
  });

  it.each(alerts.map((a) => [a.alert, a] as const))('%s fires when it must and stays silent when it must not (promtool test rules)', (name, rule) => {
    const cases = ALERT_CASES[name];
    const file = join(dir, `${name}.test.yaml`);
    const rulesFile = join(DIST, 'monitoring', 'rules.yaml');
    writeFileSync(file, Yaml.stringify({ rule_files: [rulesFile], evaluation_interval: '1m', tests: [unitTest(rule, cases.fires), ...cases.silent.map((c) => unitTest(rule, c))] }));
    expect(promtool('test', 'rules', file)).toMatch(/SUCCESS/);
  });
});

describe('a rule that is wrong', () => {
  it('is refused by promtool naming the rule and the problem, so a broken rule cannot ship', () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, Yaml.stringify({ groups: [{ name: 'bad', rules: [{ alert: 'Broken', expr: 'sum by (kind (x)', for: '5m' }] }] }));
    expect(() => promtool('check', 'rules', bad)).toThrow(/Broken|parse error|unexpected/);
  });

  it('is refused by the synth when two alerts share a name', () => {
    const twice = { ...KINDS[0], monitoring: { alerts: [{ alert: 'Cdk8sOperatorsControllerDown', expr: 'vector(1)', for: '1m', severity: 'info' as const, summary: 'x.', description: 'x' }] } };
    expect(() => ruleGroups([twice], PRODUCT_NAMES)).toThrow('monitoring: the alert Cdk8sOperatorsControllerDown is declared twice');
  });
});
