import { main } from '../../src/cli';

async function run(args: string[]): Promise<{ code: number; err: string }> {
  let err = '';
  const code = await main(args, () => undefined, (t) => (err += t));
  return { code, err };
}

describe('cdk8s-operators ui', () => {
  it.each([
    [['--namespace', 'Bad_NS'], /--namespace: expected namespace names .*got "Bad_NS"/],
    [['--user-header', 'X Forwarded'], /--user-header: expected an HTTP header name like X-Forwarded-User, got "X Forwarded"/],
    [['--port', '-1'], /--port: expected a non-negative integer, got "-1"/],
    [['--log-level', 'loud'], /--log-level: expected one of debug, info, warn, error, got "loud"/],
    [['--namespaces', 'a'], /unknown flag --namespaces \(did you mean --namespace\?\)/],
  ])('refuses %j with a message naming the option', async (args, message) => {
    const { code, err } = await run(['ui', ...args]);
    expect(code).toBe(1);
    expect(err).toMatch(message);
  });

  it('lists its options in --help', async () => {
    let out = '';
    expect(await main(['ui', '--help'], (t) => (out += t), () => undefined)).toBe(0);
    for (const option of ['--kubeconfig', '--namespace', '--port', '--host', '--user-header', 'USER_HEADER']) expect(out).toContain(option);
  });
});
