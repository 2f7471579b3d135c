import { runKeyShell } from './key-shell.js';
import type { KeyShellIo } from './key-shell.js';

// Only what fails before any request: these need no server (the URL points nowhere).
function io(env: Record<string, string> = {}): KeyShellIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: (line) => out.push(line),
    stderr: (line) => err.push(line),
    env: { FASTPATH_KMS_URL: 'http://127.0.0.1:1/kms', ...env },
    readLine: () => Promise.resolve(undefined),
    defaultUser: 'tester',
  };
}

describe('runKeyShell usage', () => {
  it('prints help with status 0', async () => {
    const shell = io();
    expect(await runKeyShell(['--help'], shell)).toBe(0);
    expect(shell.out.join('\n')).toMatch(/^Usage: fastpath-key/);
    expect(shell.out.join('\n')).toContain('FASTPATH_KMS_URL');
  });

  it.each([
    [[], /no command given/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['create'], /create needs exactly one key name/],
    [['roll', 'a', 'b'], /roll needs exactly one key name/],
    [['list', 'extra'], /list takes no arguments/],
    [['token'], /token needs get, renew or cancel/],
    [['token', 'steal'], /unknown token command "steal"/],
    [['token', 'get', 'x'], /token get takes no arguments/],
    [['list', '--cipher', 'AES'], /--cipher does not apply to "list"/],
    [['roll', 'k', '-f'], /--force does not apply to "roll"/],
    [['create', 'k', '--size', 'big'], /--size needs a positive integer/],
    [['create', 'k', '-attr', 'novalue'], /--attr needs name=value/],
    [['create', 'k', '-attr', 'a=1', '-attr', 'a=2'], /attribute "a" was given more than once/],
    [['list', '--bogus'], /Unknown option '--bogus'/],
    [['list', '--url', 'ftp://x/kms'], /invalid option "url"/],
    [['list', '--url', 'http://a/kms', '--provider', 'http://b/kms'], /--url or --provider, not both/],
    [['list', '--token', 'x', '--token-file', 'y'], /--token or --token-file, not both/],
    [['list', '--ca', '/nonexistent/ca.pem'], /cannot read the --ca file "\/nonexistent\/ca.pem" \(ENOENT\)/],
    [['list', '--token', 'garbage!'], /delegationToken/],
    [['token', 'renew'], /token renew needs a token/],
    [['list', '--timeout-ms', '0'], /--timeout-ms needs a positive integer/],
  ])('%j is a usage error (status 2)', async (argv, message) => {
    const shell = io();
    expect(await runKeyShell(argv, shell)).toBe(2);
    expect(shell.err.join('\n')).toMatch(message);
    expect(shell.out).toEqual([]);
  });

  it('reports usage errors as JSON with --json', async () => {
    const shell = io();
    expect(await runKeyShell(['create', '--json'], shell)).toBe(2);
    expect(JSON.parse(shell.err[0] as string)).toEqual({
      error: { code: 'ERR_KMS_CLI_USAGE', message: 'create needs exactly one key name' },
    });
  });

  it('does not delete without a confirmation, and asks nothing of the server', async () => {
    const shell = io();
    expect(await runKeyShell(['delete', 'k1'], shell)).toBe(1);
    expect(shell.err).toEqual(['Nothing has been deleted.']);
  });

  it('fails with status 1 and a hint when the server is unreachable', async () => {
    const shell = io();
    expect(await runKeyShell(['list'], shell)).toBe(1);
    expect(shell.err[0]).toMatch(/getKeyNames failed: server unreachable .*\[ERR_KMS_UNREACHABLE\]/);
    expect(shell.err[1]).toBe('Is a KMS running at http://127.0.0.1:1/kms? Set --url or FASTPATH_KMS_URL.');
  });

  it('never echoes a malformed token it was given', async () => {
    const shell = io({ FASTPATH_KMS_TOKEN: 'c2VjcmV0LXNlY3JldC1zZWNyZXQ!' });
    expect(await runKeyShell(['list'], shell)).toBe(2);
    expect(shell.err.join('\n')).not.toContain('c2VjcmV0');
  });
});
