/**
 * A problem the user can fix (a bad flag, variable, file, resource or kubeconfig), as opposed
 * to a bug: src/cli.ts and synth print each problem as one line, `<operator> <command>:
 * <problem>`, with no stack, and exit with the command's error code. Every other error is a
 * bug and keeps its stack. One error may carry several problems (synth reports every invalid
 * resource at once).
 */
export class UserError extends Error {
  readonly problems: readonly string[];

  constructor(problems: string | readonly string[]) {
    const list = typeof problems === 'string' ? [problems] : [...problems];
    super(list.join('\n'));
    this.name = 'UserError';
    this.problems = list;
  }

  /** What the user reads: `<prefix>: <problem>`, one line per problem. */
  lines(prefix: string): string[] {
    return this.problems.map((problem) => `${prefix}: ${problem}`);
  }
}
