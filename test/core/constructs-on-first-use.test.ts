import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { KINDS } from '../../src/kinds';

/**
 * A kind's constructs load at their first use (KindConstructs): a controller that serves
 * nothing yet holds neither cdk8s nor any kind's constructs. Checked in a fresh process on
 * the compiled code (`npm test` builds first), since Jest's own module registry is shared.
 */
const LIB = join(__dirname, '..', '..', 'lib');
const HEAVY = ['cdk8s', 'cdk8s-plus-27', 'constructs', 'axios', 'yaml'];

/** Runs `body` in a fresh Node with the kinds and the runtime loaded; returns what it printed as JSON. */
function inFreshProcess(body: string): { packages: string[]; constructs: string[] } {
  const script = `
    const { KINDS } = require(${JSON.stringify(join(LIB, 'src', 'kinds'))});
    require(${JSON.stringify(join(LIB, 'src', 'runtime', 'main'))});
    ${body}
    const loaded = Object.keys(require.cache);
    const packages = [...new Set(loaded.flatMap((f) => f.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)/)?.[1] ?? []))];
    const constructs = loaded.filter((f) => /kinds\\/[^/]+\\/constructs\\.js$/.test(f)).map((f) => f.split('/').at(-2));
    process.stdout.write(JSON.stringify({ packages, constructs }));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
}

describe('constructs load at their first use', () => {
  it('the kinds and the controller load without cdk8s, any kind\u2019s constructs, axios or yaml', () => {
    const { packages, constructs } = inFreshProcess('');
    expect(packages.filter((p) => HEAVY.includes(p))).toEqual([]);
    expect(constructs).toEqual([]);
  });

  it.each(KINDS.map((k) => [k.kind, KINDS.indexOf(k)]))('rendering one %s loads its own constructs and no other kind\u2019s', (_kind, index) => {
    const { packages, constructs } = inFreshProcess(`
      const { App, Chart } = require('cdk8s');
      const { validateResource } = require(${JSON.stringify(join(LIB, 'src', 'core', 'kind'))});
      const { renderChildren } = require(${JSON.stringify(join(LIB, 'src', 'core', 'render'))});
      const kind = KINDS[${index}];
      const example = kind.example(new Chart(new App(), 'examples'), 'team-a').toJson();
      const valid = validateResource(kind, example);
      if (!valid.ok) throw new Error(JSON.stringify(valid.errors));
      renderChildren(kind, { ...example, spec: valid.spec });`);
    expect(constructs).toHaveLength(1);
    expect(packages).toContain('cdk8s');
  });
});
