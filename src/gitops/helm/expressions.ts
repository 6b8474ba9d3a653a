import type { ChartExpressions } from '../../core/contract/companion';

/**
 * Helm expressions inside objects that cdk8s serializes. cdk8s writes strings, so an
 * expression goes into an object as a marker string and comes out of the YAML as template
 * text: a scalar (`replicas: {{ .Values.replicas }}`, unquoted so that it stays a number),
 * a block under a key (`resources: {{- toYaml ... }}`) or lines in place of a list item.
 */
export class HelmExpressions implements ChartExpressions {
  private readonly templates: ((indent: string) => string)[] = [];

  /** A value the template writes as is, e.g. `{{ .Values.replicas }}` or `"{{ .Values.a }}:{{ .Values.b }}"`. */
  value(template: string): string {
    return this.marker(() => template);
  }

  /** A map or list taken whole from the values: `key: {{- toYaml .Values.<path> | nindent <n> }}`. */
  yamlOf(valuesPath: string): string {
    return this.marker((indent) => `{{- toYaml .Values.${valuesPath} | nindent ${indent.length + 2} }}`);
  }

  /**
   * List items the template adds (or not), one per line at the list's indent, e.g. `{{- if .Values.x }}`, `- --x`, `{{- end }}`;
   * lines that depend on that indent (a `nindent`) are given by a function of it.
   */
  listItems(lines: string[] | ((indent: string) => string[])): string {
    return this.marker((indent) => (typeof lines === 'function' ? lines(indent) : lines).map((line, i) => (i === 0 ? line : `${indent}${line}`)).join('\n'));
  }

  /**
   * YAML that cdk8s wrote with markers in it, as template text. Braces already in it (say, in
   * a description) are escaped first, so that Helm writes them instead of evaluating them.
   */
  fill(yaml: string): string {
    const escaped = yaml.replace(/\{\{/g, '{{ "{{" }}');
    return escaped
      .split('\n')
      .map((line) => {
        const item = /^(\s*)- (["']?)@@helm:(\d+)@@\2$/.exec(line);
        if (item) return `${item[1]}${this.template(item[3], item[1])}`;
        const key = /^(\s*(?:- )?)([\w.-]+): (["']?)@@helm:(\d+)@@\3$/.exec(line);
        if (key) return `${key[1]}${key[2]}: ${this.template(key[4], key[1].replace('- ', '  '))}`;
        return line.replace(/(["']?)@@helm:(\d+)@@\1/g, (_, _quote: string, index: string) => this.template(index, ''));
      })
      .join('\n');
  }

  private marker(template: (indent: string) => string): string {
    this.templates.push(template);
    return `@@helm:${this.templates.length - 1}@@`;
  }

  private template(index: string, indent: string): string {
    const template = this.templates[Number(index)];
    if (!template) throw new Error(`helm: no expression @@helm:${index}@@`);
    return template(indent);
  }
}
