import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { InvalidOptionError, ManualClock } from '@fastpath/core';
import { NoMatchingKerberosRuleError } from '@fastpath/hadoop-common';
import { describeSecretManagerContract } from '../test/support/secret-manager-contract.js';
import { gate, isPending, waitFor } from '@fastpath/test-support';
import {
  DEFAULT_DELEGATION_TOKEN_SECRET_MANAGER_OPTIONS,
  DelegationKey,
  DelegationTokenIdentifier,
  DelegationTokenSecretManager,
  DuplicateTokenError,
  InMemoryTokenStore,
  TokenManagerStateError,
  type DelegationTokenSecretManagerOptions,
  type PreparedToken,
  type TokenInformation,
  type TokenStore,
  type TokenStoreContext,
} from './index.js';

describeSecretManagerContract(
  'in-memory',
  () => {
    const managers: DelegationTokenSecretManager[] = [];
    return {
      async create(options: DelegationTokenSecretManagerOptions = {}) {
        const m = new DelegationTokenSecretManager(options);
        await m.start();
        managers.push(m);
        return m;
      },
      async close() {
        await Promise.all(managers.map((m) => m.stop()));
      },
    };
  },
  { shared: false, concurrency: { clients: 100, perClient: 100 } },
);

const T0 = Date.parse('2024-03-01T00:00:00Z');

/**
 * A store that records the calls of its manager (Hadoop's storage hooks, now the methods of
 * the TokenStore it is composed with), keeping its state in the in-memory store it wraps.
 */
class RecordingStore implements TokenStore {
  readonly calls: string[] = [];
  failStoreToken = false;
  readonly #inner = new InMemoryTokenStore();
  readonly persistsOutsideLock = this.#inner.persistsOutsideLock;
  readonly oneTokenPerSequenceNumber = this.#inner.oneTokenPerSequenceNumber;
  start(context: TokenStoreContext): Promise<void> {
    return this.#inner.start(context);
  }
  stop(): Promise<void> {
    return this.#inner.stop();
  }
  reset(): void {
    this.#inner.reset();
  }
  allocateSequenceNumber(signal: AbortSignal | undefined): Promise<number> {
    return this.#inner.allocateSequenceNumber(signal);
  }
  nextKeyId(): Promise<number> {
    return this.#inner.nextKeyId();
  }
  async storeKey(key: DelegationKey): Promise<void> {
    this.calls.push(`storeKey ${key.keyId}`);
    await this.#inner.storeKey(key);
  }
  updateKey(key: DelegationKey): Promise<void> {
    return this.#inner.updateKey(key);
  }
  async removeKey(key: DelegationKey): Promise<void> {
    this.calls.push(`removeKey ${key.keyId}`);
    await this.#inner.removeKey(key);
  }
  findKey(keyId: number): Promise<DelegationKey | undefined> {
    return this.#inner.findKey(keyId);
  }
  async storeToken(prepared: PreparedToken): Promise<void> {
    if (this.failStoreToken) throw new Error('disk full');
    this.calls.push(`storeToken ${prepared.identifier.sequenceNumber} ${prepared.info.renewDate - T0}`);
    await this.#inner.storeToken(prepared);
  }
  findTokenForUpdate(id: DelegationTokenIdentifier): Promise<TokenInformation | undefined> {
    return this.#inner.findTokenForUpdate(id);
  }
  async updateToken(id: DelegationTokenIdentifier, info: TokenInformation): Promise<void> {
    this.calls.push(`updateToken ${id.sequenceNumber} ${info.renewDate - T0}`);
    await this.#inner.updateToken(id, info);
  }
  async removeToken(id: DelegationTokenIdentifier): Promise<boolean> {
    this.calls.push(`removeToken ${id.sequenceNumber}`);
    return this.#inner.removeToken(id);
  }
  async removeExpiredToken(id: DelegationTokenIdentifier): Promise<void> {
    this.calls.push(`removeExpiredToken ${id.sequenceNumber}`);
    await this.#inner.removeExpiredToken(id);
  }
}

describe('DelegationTokenSecretManager (in-memory)', () => {
  let clock: ManualClock;
  const managers: DelegationTokenSecretManager[] = [];
  const started = async <M extends DelegationTokenSecretManager>(m: M): Promise<M> => {
    managers.push(m);
    await m.start();
    return m;
  };
  beforeEach(() => {
    clock = new ManualClock(T0);
  });
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((m) => m.stop()));
  });

  it("has Hadoop's defaults", () => {
    expect(DEFAULT_DELEGATION_TOKEN_SECRET_MANAGER_OPTIONS).toMatchObject({
      keyUpdateIntervalMs: 86_400_000,
      tokenMaxLifetimeMs: 604_800_000,
      tokenRenewIntervalMs: 86_400_000,
      removalScanIntervalMs: 3_600_000,
      hmacAlgorithm: 'sha1',
      masterKeyLengthBytes: 8,
      creationLocking: 'staged',
    });
    expect(Object.isFrozen(DEFAULT_DELEGATION_TOKEN_SECRET_MANAGER_OPTIONS)).toBe(true);
  });

  it.each<[string, DelegationTokenSecretManagerOptions]>([
    ['keyUpdateIntervalMs', { keyUpdateIntervalMs: 0 }],
    ['tokenMaxLifetimeMs', { tokenMaxLifetimeMs: -1 }],
    ['tokenRenewIntervalMs', { tokenRenewIntervalMs: 1.5 }],
    ['hmacAlgorithm', { hmacAlgorithm: 'HmacNope' }],
    ['masterKeyLengthBytes', { masterKeyLengthBytes: 0 }],
    ['creationLocking', { creationLocking: 'optimistic' as never }],
    ['tokenKind', { tokenKind: '' }],
  ])('rejects a bad %s at construction', (field, options) => {
    expect(() => new DelegationTokenSecretManager(options)).toThrow(InvalidOptionError);
    expect(() => new DelegationTokenSecretManager(options)).toThrow(field);
  });

  it('answers a token string it has decoded before exactly as the first time, through renewal, expiry and cancellation', async () => {
    const m = await started(
      new DelegationTokenSecretManager({ clock, taskIntervalMs: 0, tokenRenewIntervalMs: 2000 }),
    );
    const url = (await m.createToken({ owner: 'alice', renewer: 'yarn' })).toUrlString();
    const first = await m.verify(url);
    expect(first.owner).toBe('alice');
    expect((await m.verify(url)).key).toBe(first.key);
    clock.advance(2001);
    await expect(m.verify(url)).rejects.toMatchObject({ code: 'ERR_INVALID_TOKEN' });
    clock.set(T0);
    await m.renewToken(url, 'yarn');
    expect((await m.verify(url)).owner).toBe('alice');
    await m.cancelToken(url, 'alice');
    await expect(m.verify(url)).rejects.toMatchObject({ code: 'ERR_INVALID_TOKEN' });
    // A malformed string is refused every time, not remembered.
    for (let i = 0; i < 2; i++)
      await expect(m.verify(`${url}!`)).rejects.toMatchObject({ code: 'ERR_INVALID_TOKEN' });
  });

  it('refuses to create before start and to start twice', async () => {
    const m = new DelegationTokenSecretManager({ clock, taskIntervalMs: 0 });
    await expect(m.createToken({ owner: 'a' })).rejects.toBeInstanceOf(TokenManagerStateError);
    await started(m);
    await expect(m.start()).rejects.toMatchObject({ code: 'ERR_TOKEN_MANAGER_STATE' });
    await expect(
      m.addKey(new DelegationKey({ keyId: 9, expiryDate: T0, key: Buffer.alloc(8) })),
    ).rejects.toBeInstanceOf(TokenManagerStateError);
  });

  it("calls Hadoop's storage hooks (its store's methods) at the right moments", async () => {
    const store = new RecordingStore();
    const m = await started(
      new DelegationTokenSecretManager({
        clock,
        taskIntervalMs: 0,
        keyUpdateIntervalMs: 1000,
        tokenMaxLifetimeMs: 3000,
        tokenRenewIntervalMs: 2000,
        store,
      }),
    );
    await m.rollMasterKey(); // key 1 retires with expiry T0 + 3000
    const t = await m.createToken({ owner: 'alice', renewer: 'yarn' });
    clock.advance(500);
    await m.renewToken(t, 'yarn');
    await m.cancelToken(t, 'alice');
    await m.createToken({ owner: 'alice', renewer: 'yarn' });
    clock.advance(3000);
    await m.removeExpiredTokens();
    await m.rollMasterKey(); // key 1 has expired: removed from the store; key 2 retires
    // Hadoop's hooks: storeNewMasterKey = storeKey, storeNewToken = storeToken, updateStoredToken
    // = updateToken, removeStoredToken = removeToken, logExpireToken + removeExpiredStoredToken =
    // removeExpiredToken (one call), removeStoredMasterKey = removeKey.
    expect(store.calls).toEqual([
      'storeKey 1',
      'storeKey 2',
      'storeToken 1 2000',
      'updateToken 1 2500',
      'removeToken 1',
      'storeToken 2 2500',
      'removeExpiredToken 2',
      'removeKey 1',
      'storeKey 3',
    ]);
  });

  it('a failing store hook fails the creation and leaves nothing behind', async () => {
    const store = new RecordingStore();
    const m = await started(new DelegationTokenSecretManager({ clock, taskIntervalMs: 0, store }));
    store.failStoreToken = true;
    await expect(m.createToken({ owner: 'alice' })).rejects.toThrow('disk full');
    expect(m.tokenCount).toBe(0);
    expect(m.getTokenOwnerStats().size).toBe(0);
    expect(await m.metrics.metrics()).toMatch(/token_manager_tokens_failed_total\{operation="create"\} 1/);
  });

  it('addKey and addPersistedToken load state before start; duplicates and unknown keys as Hadoop', async () => {
    const m = new DelegationTokenSecretManager({ clock, taskIntervalMs: 0 });
    const key = new DelegationKey({ keyId: 7, expiryDate: T0 + 86_400_000, key: Buffer.alloc(8, 1) });
    await m.addKey(key);
    const known = new DelegationTokenIdentifier('kms-dt', {
      owner: 'alice',
      renewer: 'yarn',
      realUser: '',
      issueDate: T0,
      maxDate: T0 + 10_000,
      sequenceNumber: 41,
      masterKeyId: 7,
    });
    const orphan = known.with({ sequenceNumber: 42, masterKeyId: 99 });
    await m.addPersistedToken(known, T0 + 5000);
    await m.addPersistedToken(orphan, T0 + 5000);
    await expect(m.addPersistedToken(known, T0 + 5000)).rejects.toBeInstanceOf(DuplicateTokenError);
    await started(m);
    expect(m.currentKeyId).toBe(8); // continues after the loaded key id
    const next = await m.createToken({ owner: 'bob' });
    expect(m.decodeToken(next).identifier.sequenceNumber).toBe(43); // continues after the loaded tokens
    const password = (await m.retrievePassword(known)).unwrap();
    await m.verifyToken(known, password);
    // A token whose key is unknown is loaded as expired.
    await expect(m.retrievePassword(orphan)).rejects.toMatchObject({ reason: 'expired' });
    await m.reset();
    expect(m.tokenCount).toBe(0);
    expect(await m.getAllKeys()).toEqual([]);
  });

  it('rolls keys and removes expired tokens on its own timer', async () => {
    const m = await started(
      new DelegationTokenSecretManager({
        clock,
        taskIntervalMs: 5,
        keyUpdateIntervalMs: 1000,
        removalScanIntervalMs: 1000,
        tokenRenewIntervalMs: 500,
      }),
    );
    const t = await m.createToken({ owner: 'alice' });
    const firstKey = m.currentKeyId;
    clock.advance(1001);
    await waitFor('a timer-driven key roll', () => m.currentKeyId !== firstKey);
    await waitFor('a timer-driven expiry scan', () => m.tokenCount === 0);
    await expect(m.verify(t)).rejects.toMatchObject({ reason: 'not-found' });
  });

  it.each(['staged', 'global'] as const)(
    'verification while a creation is held in allocation: %s',
    async (creationLocking) => {
      const held = gate();
      let holdNext = false;
      const m = await started(
        new DelegationTokenSecretManager({
          clock,
          taskIntervalMs: 0,
          creationLocking,
          hooks: {
            onAllocate: async () => {
              if (!holdNext) return;
              holdNext = false;
              held.arrive();
              await held.promise;
            },
          },
        }),
      );
      const cached = await m.createToken({ owner: 'alice' });
      holdNext = true;
      const creation = m.createToken({ owner: 'bob' });
      await held.reached;
      const verification = m.verify(cached);
      if (creationLocking === 'staged') {
        await expect(verification).resolves.toBeDefined();
      } else {
        expect(await isPending(verification)).toBe(true);
      }
      held.open();
      await expect(creation).resolves.toBeDefined();
      await expect(verification).resolves.toBeDefined();
    },
  );

  it('records metrics and latency for every step, and never prints secrets', async () => {
    const m = await started(new DelegationTokenSecretManager({ clock, taskIntervalMs: 0 }));
    const t = await m.createToken({ owner: 'alice', renewer: 'yarn' });
    await m.verify(t);
    await m.renewToken(t, 'yarn');
    await m.cancelToken(t, 'alice');
    await expect(m.verify(t)).rejects.toThrow();
    const text = await m.metrics.metrics();
    for (const line of [
      'token_manager_tokens_created_total 1',
      'token_manager_tokens_verified_total 1',
      'token_manager_tokens_renewed_total 1',
      'token_manager_tokens_cancelled_total 1',
      'token_manager_tokens_failed_total{operation="verify"} 1',
      'token_manager_create_prepare_seconds_count 1',
      'core_lock_wait_seconds_count{lock="token-manager-global",mode="read"}',
    ]) {
      expect(text).toContain(line);
    }
    const latency = m.latency();
    expect(latency.allocate.count).toBe(1);
    expect(latency.prepare.count).toBe(1);
    expect(latency.verify.count).toBe(2);
    const pw = t.password.unwrap();
    const printed = `${inspect(t)} ${String(t)} ${JSON.stringify(await m.getAllKeys())}`;
    expect(printed).not.toContain(pw.toString('hex'));
    expect(printed).not.toContain(pw.toString('base64'));
  });
});

describe('kerberosNameRules default', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dtsm-krb5-'));
  const saved = process.env['KRB5_CONFIG'];
  afterAll(() => {
    if (saved === undefined) delete process.env['KRB5_CONFIG'];
    else process.env['KRB5_CONFIG'] = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it("maps renewers with DEFAULT and krb5.conf's default realm, as Hadoop does", async () => {
    const conf = join(dir, 'krb5.conf');
    writeFileSync(conf, '[libdefaults]\n  default_realm = CORP.EXAMPLE\n');
    process.env['KRB5_CONFIG'] = conf;
    await using m = new DelegationTokenSecretManager({ taskIntervalMs: 0 });
    await m.start();
    const t = await m.createToken({ owner: 'alice', renewer: 'yarn/rm.corp.example@CORP.EXAMPLE' });
    expect(DelegationTokenIdentifier.decode('kms-dt', t.identifier).renewer).toBe('yarn');
    // The helper this replaced cut any principal at its first / or @ and stored "yarn" here too.
    const refused = await m
      .createToken({ owner: 'alice', renewer: 'yarn/rm@ELSEWHERE' })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'ERR_TOKEN_ACCESS_DENIED', reason: 'unmapped-principal' });
    expect((refused as Error).cause).toBeInstanceOf(NoMatchingKerberosRuleError);
  });

  it('refuses a value that is not KerberosNameRules', () => {
    const options = { kerberosNameRules: 'DEFAULT' } as unknown as DelegationTokenSecretManagerOptions;
    expect(() => new DelegationTokenSecretManager(options)).toThrow(InvalidOptionError);
  });
});
