import { AnyKind } from '../core/contract/kind';
import { AlertRule, kindAlerts } from '../core/contract/monitoring';
import { OperatorNames } from '../core/install/identity';
import { engineAlerts } from './engine-alerts';

/** Where the runbooks are, unless synth is told another URL (`--runbook-url`); each alert's section is `#<alert in lower case>`. */
export const DEFAULT_RUNBOOK_URL = 'docs/monitoring.md';

/** A rule as Prometheus reads it. */
export interface PrometheusAlert {
  readonly alert: string;
  readonly expr: string;
  readonly for: string;
  readonly labels: { readonly severity: string };
  readonly annotations: { readonly summary: string; readonly description: string; readonly runbook_url: string };
}

export interface RuleGroup {
  readonly name: string;
  readonly rules: readonly PrometheusAlert[];
}

/** Every alert the operator ships: the engine's, then each kind's own, with the kind's name. */
export function allAlerts(kinds: readonly AnyKind[], operator: OperatorNames): { readonly group: string; readonly alerts: readonly AlertRule[] }[] {
  return [
    { group: `${operator.identity.name}.engine`, alerts: engineAlerts(operator) },
    ...kinds.map((k) => ({ group: `${operator.identity.name}.${k.plural}`, alerts: kindAlerts(k, operator.metricPrefix) })).filter(({ alerts }) => alerts.length),
  ];
}

/** The rule groups, one for the engine and one per kind that has alerts of its own. */
export function ruleGroups(kinds: readonly AnyKind[], operator: OperatorNames, runbookUrl = DEFAULT_RUNBOOK_URL): RuleGroup[] {
  const seen = new Set<string>();
  return allAlerts(kinds, operator).map(({ group, alerts }) => ({
    name: group,
    rules: alerts.map((a) => {
      if (seen.has(a.alert)) throw new Error(`monitoring: the alert ${a.alert} is declared twice`);
      if (!/^[A-Z][A-Za-z0-9]*$/.test(a.alert)) throw new Error(`monitoring: alert name "${a.alert}" must be CamelCase letters and digits`);
      seen.add(a.alert);
      return {
        alert: a.alert,
        expr: a.expr,
        for: a.for,
        labels: { severity: a.severity },
        annotations: { summary: a.summary, description: a.description, runbook_url: `${runbookUrl}#${runbookAnchor(a.alert)}` },
      };
    }),
  }));
}

/** The anchor of an alert's runbook section: its heading (`### AlertName`), as GitHub makes anchors. */
export function runbookAnchor(alert: string): string {
  return alert.toLowerCase();
}
