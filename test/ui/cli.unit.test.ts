import { main } from '../../src/cli';

async function run(args: string[]): Promise<{ code: number; err: string }> {
  let err = '';
  const code = await main(args, () => undefined, (t) => (err += t));
  return { code, err };
}

describe('cdk8s-operators ui', () => {
  it.each([
    [['--namespace', 'Bad_NS'], /--namespace: expected namespace names .*got "Bad_NS"/],
    [['--auth', 'impersonate', '--user-header', 'X Forwarded', '--impersonate-users', 'a', '--proxy-secret-file', '/dev/null'], /--user-header: expected an HTTP header name like X-Forwarded-User, got "X Forwarded"/],
    [['--auth', 'anyone'], /--auth.*expected one of token, impersonate, service-account, got "anyone"/],
    [['--user-header', 'X-Forwarded-User'], /--user-header: only taken with --auth=impersonate \(got --auth=token\)/],
    [['--auth', 'impersonate', '--user-header', 'X-Forwarded-User'], /--auth=impersonate: also needs --impersonate-users, --proxy-secret-file/],
    [['--auth', 'impersonate', '--user-header', 'X-U', '--impersonate-users', 'alice,system:admin', '--proxy-secret-file', '/dev/null'], /--impersonate-users: expected people's user names, got the system identity "system:admin"/],
    [['--auth', 'impersonate', '--user-header', 'X-U', '--impersonate-users', 'alice', '--proxy-secret-file', '/no/such/file'], /--proxy-secret-file: cannot read it: ENOENT/],
    [['--auth', 'impersonate', '--user-header', 'X-U', '--impersonate-users', 'alice', '--proxy-secret-file', '/dev/null'], /--proxy-secret-file: expected a secret of at least 16 characters/],
    [['--max-streams-per-user', '0'], /--max-streams-per-user: expected a positive integer, got "0"/],
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
    for (const option of ['--kubeconfig', '--namespace', '--port', '--host', '--auth', '--user-header', '--impersonate-users', '--proxy-secret-file', '--max-streams', 'USER_HEADER']) expect(out).toContain(option);
  });
});
