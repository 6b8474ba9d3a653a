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
/** The conversion webhook's: a controller loads them only to serve conversion (the UI is a fastify app of its own). */
const WEBHOOK = ['fastify', '@peculiar/x509'];

/** What a fresh Node holds once `body` ran: the packages and the kinds' constructs it loaded, and what `body` printed (its JSON). */
function loadedAfter(body: string): { packages: string[]; constructs: string[]; printed: string } {
  const script = `
    const printed = [];
    const report = () => {
      const loaded = Object.keys(require.cache);
      const packages = [...new Set(loaded.flatMap((f) => f.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)/)?.[1] ?? []))];
      const constructs = loaded.filter((f) => /kinds\\/[^/]+\\/constructs\\.js$/.test(f)).map((f) => f.split('/').at(-2));
      process.stdout.write(JSON.stringify({ packages, constructs, printed: printed.join('\\n') }));
    };
    Promise.resolve().then(async () => { ${body} }).then(report);`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
}

/** The real entry point (the image runs `cdk8s-operators controller`), as bin/cdk8s-operators calls it. */
const cli = (args: string[]) => `
  const { main } = require(${JSON.stringify(join(LIB, 'src', 'cli'))});
  await main(${JSON.stringify(args)}, (t) => printed.push(t), (t) => printed.push(t));`;

/** Runs `body` in a fresh Node with the kinds loaded. */
function inFreshProcess(body: string): { packages: string[]; constructs: string[] } {
  return loadedAfter(`const { KINDS } = require(${JSON.stringify(join(LIB, 'src', 'kinds'))}); ${body}`);
}

describe('constructs load at their first use', () => {
  it('cdk8s-operators controller starts without cdk8s, any kind\u2019s constructs, axios, yaml or the conversion webhook', () => {
    const { packages, constructs, printed } = loadedAfter(cli(['controller', '--help']));
    expect(printed).toContain('--workers');
    expect(packages.filter((p) => HEAVY.includes(p) || WEBHOOK.includes(p))).toEqual([]);
    expect(constructs).toEqual([]);
    // A bad option is reported by the same entry point, as lightly.
    const bad = loadedAfter(cli(['controller', '--workers=many']));
    expect(bad.printed).toBe('cdk8s-operators controller: --workers: expected a positive integer, got "many"');
    expect(bad.packages.filter((p) => HEAVY.includes(p))).toEqual([]);
  });

  it('cdk8s-operators --help and the UI\u2019s --help load neither the kinds nor cdk8s', () => {
    for (const args of [['--help'], ['ui', '--help']]) {
      const { packages, constructs } = loadedAfter(cli(args));
      expect(packages.filter((p) => HEAVY.includes(p))).toEqual([]);
      expect(constructs).toEqual([]);
    }
  });

  it('the public face\u2019s entries a controller and the UI load (kind, operator, client) hold no cdk8s; constructs holds cdk8s-plus-27', () => {
    const entry = (name: string) => `require(${JSON.stringify(join(LIB, 'src', 'engine', name))});`;
    const { packages } = loadedAfter(['kind', 'operator', 'client'].map(entry).join(' '));
    expect(packages.filter((p) => HEAVY.includes(p) || WEBHOOK.includes(p))).toEqual([]);
    expect(loadedAfter(entry('constructs')).packages).toContain('cdk8s-plus-27');
  });

  it.each(KINDS.map((k) => [k.kind, KINDS.indexOf(k)]))('rendering one %s loads its own constructs and no other kind\u2019s', (_kind, index) => {
    const { packages, constructs } = inFreshProcess(`
      const { App, Chart } = require('cdk8s');
      const { validateResource } = require(${JSON.stringify(join(LIB, 'src', 'core', 'contract', 'validation'))});
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
