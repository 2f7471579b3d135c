// Cookie signer secrets shared through a real ZooKeeper (signer.secret.provider=zookeeper): two
// fastpath-kms instances honour each other's cookies through rollovers, refuse a secret older than
// the previous one, refuse to start without ZooKeeper (one line), and keep serving their secrets
// while ZooKeeper is away.
import { createServer } from 'node:net';
import { useZooKeeper, type TestZooKeeperClient } from '@fastpath/zookeeper-fixture/jest';
import { startDelayProxy, zkGetData } from '@fastpath/zookeeper-fixture';
import { eventually, waitFor } from '@fastpath/test-support';
import { KmsSignerSecretsError } from '../src/index.js';
import { readSignerSecretsZnode, signHadoopAuthCookie, type SignerSecretsZnode } from '../src/testing.js';
import type { KmsLogger } from '../src/internal/kms-logger.js';
import { startTestKms, type TestKms } from './support/test-kms.js';

const zk = useZooKeeper();
const SIGNER = 'hadoop.kms.authentication.signer.secret.provider';
/** The rollover interval of these tests: token.validity, seconds. */
const VALIDITY_SEC = 2;

function signerSite(path: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    [SIGNER]: 'zookeeper',
    [`${SIGNER}.zookeeper.connection.string`]: zk.connectString,
    [`${SIGNER}.zookeeper.path`]: path,
    'hadoop.kms.authentication.token.validity': String(VALIDITY_SEC),
    ...extra,
  };
}

/** A logger that keeps the lines. */
function recordingLogger(): KmsLogger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(`INFO ${m}`),
    warn: (m) => lines.push(`WARN ${m}`),
    error: (m) => lines.push(`ERROR ${m}`),
  };
}

async function znode(
  client: TestZooKeeperClient,
  path: string,
): Promise<SignerSecretsZnode & { version: number }> {
  const { data, stat } = await zkGetData(client, path);
  return { ...readSignerSecretsZnode(data), version: stat.version };
}

/**
 * Waits until the fleet is clear of a rollover (at least 300 ms after one and 500 ms before the
 * next, on the znode's schedule), so that every instance holds the same secrets while a test
 * checks; returns the znode then.
 */
async function betweenRollovers(
  client: TestZooKeeperClient,
  path: string,
): Promise<SignerSecretsZnode & { version: number }> {
  return waitFor(
    'a moment between two rollovers',
    async () => {
      const state = await znode(client, path);
      const untilNext = state.nextRolloverMs - Date.now();
      return untilNext > 500 && untilNext < VALIDITY_SEC * 1000 - 300 ? state : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 50 },
  );
}

/** A cookie `kms` issues to `user` (through `user.name`). */
async function mint(kms: TestKms, user: string): Promise<string> {
  const res = await kms.call('GET', '/kms/v1/keys/names', { user });
  expect(res.statusCode).toBe(200);
  const setCookie = [res.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith('hadoop.auth='));
  if (setCookie === undefined) throw new Error('no hadoop.auth cookie');
  return setCookie.split(';')[0] as string;
}

/** Who `kms` takes the cookie for, or the refusal's status and message. */
async function present(kms: TestKms, cookie: string): Promise<string> {
  const res = await kms.call('GET', '/kms/v1/keys/names', { headers: { cookie } });
  return res.statusCode === 200 ? 'accepted' : `${res.statusCode} ${res.body}`;
}

async function metric(kms: TestKms, line: RegExp): Promise<number> {
  const text = (await kms.call('GET', '/metrics')).body;
  const match = line.exec(text);
  return match === null ? 0 : Number(match[1]);
}

/** Waits until `kms` has served a rollover without ZooKeeper (it rolled on the secrets it had). */
async function aRolloverWithoutZooKeeper(kms: TestKms): Promise<void> {
  await waitFor(
    'a rollover without ZooKeeper',
    async () =>
      (await metric(kms, /kms_signer_secret_rollovers_total\{outcome="kept"\} (\d+)/)) > 0 ? true : undefined,
    { timeoutMs: 30_000, intervalMs: 50 },
  );
}

describe('cookie signer secrets shared through ZooKeeper', () => {
  const servers: TestKms[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s[Symbol.asyncDispose]();
  });

  it("honours each other's cookies through two rollovers, and refuses a secret older than the previous one", async () => {
    const path = `/${zk.uniquePath('signer')}/secret`;
    const a = await startTestKms({ site: signerSite(path) });
    servers.push(a);
    const b = await startTestKms({ site: signerSite(path) });
    servers.push(b);
    const client = await zk.client();
    const forged = (secret: Buffer): string =>
      signHadoopAuthCookie({ secret, user: 'mallory', expiresMs: Date.now() + 3_600_000 });
    // A period in which both instances have rolled to the znode's current secret (each rolls on
    // its own timer, which a loaded machine may run late).
    const settled = (): Promise<SignerSecretsZnode & { version: number }> =>
      waitFor(
        'both instances on the current secret',
        async () => {
          const s = await betweenRollovers(client, path);
          for (const kms of [a, b])
            if ((await present(kms, forged(s.current))) !== 'accepted') return undefined;
          return s;
        },
        { timeoutMs: 60_000, intervalMs: 50 },
      );
    const first = await settled();
    const seen = new Set<string>();
    let state = first;
    // Three periods: the first secret, then two rollovers.
    while (seen.size < 3) {
      state = await settled();
      const answers: string[] = [];
      for (const [issuer, verifier] of [
        [a, b],
        [b, a],
      ] as const) {
        answers.push(await present(verifier, await mint(issuer, 'alice')));
      }
      // A rollover that came in between leaves the period to be done again.
      if (!(await znode(client, path)).current.equals(state.current)) continue;
      expect(answers).toEqual(['accepted', 'accepted']);
      seen.add(state.current.toString('hex'));
    }
    // The znode's current and previous secrets verify at both; the first one is now older.
    expect(state.previous).toBeDefined();
    expect(first.current.equals(state.current) || first.current.equals(state.previous as Buffer)).toBe(false);
    for (const kms of [a, b]) {
      expect(await present(kms, forged(state.current))).toBe('accepted');
      expect(await present(kms, forged(state.previous as Buffer))).toBe('accepted');
      // Signature first, as Hadoop checks it: the old cookie is refused for its signature.
      expect(await present(kms, forged(first.current))).toMatch(/^401 .*SignerException: Invalid signature/);
    }
    // Each rollover was written once, by whichever instance came first; the others read it.
    const wrote = async (kms: TestKms): Promise<number> =>
      metric(kms, /kms_signer_secret_rollovers_total\{outcome="wrote"\} (\d+)/);
    const read = async (kms: TestKms): Promise<number> =>
      metric(kms, /kms_signer_secret_rollovers_total\{outcome="read"\} (\d+)/);
    const final = await betweenRollovers(client, path);
    expect((await wrote(a)) + (await wrote(b))).toBe(final.version);
    // Once both run, each rollover has one writer and one reader.
    expect((await read(a)) + (await read(b))).toBeGreaterThanOrEqual(1);
    expect(await metric(a, /kms_signer_secrets_zookeeper_connected (\d+)/)).toBe(1);
  }, 120_000);

  it('refuses to start without ZooKeeper, in one line naming the setting', async () => {
    // A port nobody listens on: taken, then given back.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = probe.address() as { port: number };
        probe.close(() => resolve(p));
      });
    });
    const error = await startTestKms({
      site: signerSite('/unused/secret', {
        [`${SIGNER}.zookeeper.connection.string`]: `127.0.0.1:${port}`,
        'fastpath.kms.signer.secret.zookeeper.connection.timeout.ms': '300',
      }),
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(KmsSignerSecretsError);
    const { message, code, retriable } = error as KmsSignerSecretsError;
    expect({ code, retriable, oneLine: !message.includes('\n') }).toEqual({
      code: 'ERR_KMS_SIGNER_SECRETS',
      retriable: true,
      oneLine: true,
    });
    expect(message).toBe(
      `ZooKeeper at 127.0.0.1:${port} did not answer (3 attempts of 300 ms), so the cookie signer secrets cannot be shared: ` +
        `start ZooKeeper or correct ${SIGNER}.zookeeper.connection.string`,
    );
  }, 60_000);

  it('keeps its secrets while ZooKeeper is away, says so, and rejoins the fleet when it is back', async () => {
    const path = `/${zk.uniquePath('signer-away')}/secret`;
    const timeouts = {
      'fastpath.kms.signer.secret.zookeeper.connection.timeout.ms': '1000',
      'fastpath.kms.signer.secret.zookeeper.session.timeout.ms': '4000',
    };
    const logger = recordingLogger();
    const a = await startTestKms({ site: signerSite(path, timeouts), logger });
    servers.push(a);
    const b = await startTestKms({ site: signerSite(path, timeouts) });
    servers.push(b);
    const client = await zk.client();
    await betweenRollovers(client, path);
    const before = await mint(a, 'alice');

    await zk.fixture.stop(0);
    try {
      await waitFor('the lost connection in the metrics', async () =>
        (await metric(a, /kms_signer_secrets_zookeeper_connected (\d+)/)) === 0 ? true : undefined,
      );
      expect(logger.lines.join('\n')).toMatch(
        /WARN cookie signer secrets: the ZooKeeper connection was lost; this server keeps the secrets it has/,
      );
      // A rollover passes without ZooKeeper: both roll to the secret the fleet agreed on ...
      await aRolloverWithoutZooKeeper(a);
      // ... so each still takes the other's cookies, new and from before.
      await eventually(
        async () => {
          expect(await present(b, await mint(a, 'alice'))).toBe('accepted');
          expect(await present(a, await mint(b, 'bob'))).toBe('accepted');
        },
        { timeoutMs: 10_000, intervalMs: 200 },
      );
      expect(await present(b, before)).toMatch(/^accepted$|AuthenticationToken expired/);
    } finally {
      await zk.fixture.restart(0);
    }
    await waitFor(
      'both back on ZooKeeper',
      async () =>
        (await metric(a, /kms_signer_secrets_zookeeper_connected (\d+)/)) === 1 &&
        (await metric(b, /kms_signer_secrets_zookeeper_connected (\d+)/)) === 1
          ? true
          : undefined,
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    // The rollover made while away is in ZooKeeper now, and the fleet rolls on together. (The
    // first client's session may have ended with the server: a new one reads.)
    const again = await zk.client();
    const back = await betweenRollovers(again, path);
    const later = await waitFor(
      'a rollover after ZooKeeper came back',
      async () => {
        const state = await betweenRollovers(again, path);
        return state.version > back.version ? state : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(later.version).toBeGreaterThan(back.version);
    const forged = signHadoopAuthCookie({
      secret: later.current,
      user: 'mallory',
      expiresMs: Date.now() + 60_000,
    });
    await waitFor(
      'both instances on the current secret',
      async () => (await present(a, forged)) === 'accepted' && (await present(b, forged)) === 'accepted',
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    for (const [issuer, verifier] of [
      [a, b],
      [b, a],
    ] as const) {
      expect(await present(verifier, await mint(issuer, 'carol'))).toBe('accepted');
    }
    const log = logger.lines.join('\n');
    expect(log).toMatch(/INFO cookie signer secrets: ZooKeeper is back/);
    // It had rolled to the agreed secret while away: that rollover was written, by it or by the
    // other (which may have come back first, or rolled once more before this one read the znode:
    // a loaded machine keeps ZooKeeper away for longer), not undone by taking the older secrets back.
    expect(log).toMatch(
      /the rollover made while it was away (written|was written by another instance)|the fleet rolled on past the rollover this server made while it was away/,
    );
    expect(log).not.toMatch(/the fleet rolled while this server was away/);
  }, 180_000);

  it('says so when another instance wrote the rollover it made while ZooKeeper was away from it alone', async () => {
    const path = `/${zk.uniquePath('signer-alone')}/secret`;
    // A rollover period long enough for the cut-off instance to be back before the next one.
    const site = {
      'fastpath.kms.signer.secret.zookeeper.connection.timeout.ms': '1000',
      'fastpath.kms.signer.secret.zookeeper.session.timeout.ms': '4000',
      'hadoop.kms.authentication.token.validity': '6',
    };
    let proxy = await startDelayProxy({ target: zk.connectString });
    const port = Number(proxy.connectString.split(':')[1]);
    try {
      const logger = recordingLogger();
      const a = await startTestKms({
        site: signerSite(path, { ...site, [`${SIGNER}.zookeeper.connection.string`]: proxy.connectString }),
        logger,
      });
      servers.push(a);
      const b = await startTestKms({ site: signerSite(path, site) });
      servers.push(b);
      const client = await zk.client();
      // Cut the first instance off shortly before a rollover; the second keeps ZooKeeper.
      const before = await waitFor(
        'a moment shortly before a rollover',
        async () => {
          const state = await znode(client, path);
          const untilNext = state.nextRolloverMs - Date.now();
          return untilNext > 300 && untilNext < 1500 ? state : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 50 },
      );
      await proxy.close();
      await waitFor('the first instance on its own', async () =>
        (await metric(a, /kms_signer_secrets_zookeeper_connected (\d+)/)) === 0 ? true : undefined,
      );
      // It rolls to the agreed secret without ZooKeeper; the second writes that same rollover.
      await aRolloverWithoutZooKeeper(a);
      const written = await waitFor(
        'the rollover written by the second instance',
        async () => {
          const state = await znode(client, path);
          return state.version > before.version ? state : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 50 },
      );
      expect(written.current.equals(before.next)).toBe(true);
      proxy = await startDelayProxy({ target: zk.connectString, ports: [port] });
      // Back, it finds its own secret current: the fleet in step, and its log says who wrote it.
      await waitFor(
        'the first instance back in step',
        () =>
          logger.lines.some((line) =>
            line.includes(
              'ZooKeeper is back; the rollover made while it was away was written by another instance',
            ),
          )
            ? true
            : undefined,
        { timeoutMs: 30_000, intervalMs: 50 },
      );
      const log = logger.lines.join('\n');
      expect(log).not.toMatch(/the fleet rolled (on past|while this server was away)/);
      const forged = signHadoopAuthCookie({
        secret: written.current,
        user: 'mallory',
        expiresMs: Date.now() + 60_000,
      });
      for (const kms of [a, b]) expect(await present(kms, forged)).toBe('accepted');
      for (const [issuer, verifier] of [
        [a, b],
        [b, a],
      ] as const) {
        expect(await present(verifier, await mint(issuer, 'carol'))).toBe('accepted');
      }
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
