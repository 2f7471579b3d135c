import { createHmac } from 'node:crypto';
import { ManualClock, Redacted } from '@fastpath/core';
import { KerberosNameRules, NoMatchingKerberosRuleError } from '@fastpath/hadoop-common';
import {
  AccessControlError,
  InvalidTokenError,
  Token,
  type DelegationTokenIdentifier,
  type DelegationTokenSecretManager,
  type DelegationTokenSecretManagerOptions,
} from '../../src/index.js';
import { waitFor } from '@fastpath/test-support';

/**
 * One store under test: every manager `create` makes shares it (for ZooKeeper: one working path),
 * and `close` stops them all and frees the store.
 */
export interface ContractStore {
  create(options?: DelegationTokenSecretManagerOptions): Promise<DelegationTokenSecretManager>;
  close(): Promise<void>;
}

export interface ContractSettings {
  /** Whether several managers of one store see each other's tokens (behaviours 13, 14, 20). */
  shared: boolean;
  /** Concurrent clients × creations each, for behaviour 10 (Hadoop: 100 × 100). */
  concurrency: { clients: number; perClient: number };
}

const T0 = Date.parse('2024-03-01T00:00:00Z');

// The realm of the contract's principals, as krb5.conf's default realm would name it: the
// managers do not read the machine's krb5.conf.
const RULES = new KerberosNameRules('DEFAULT', { defaultRealm: 'EXAMPLE.COM' });

/**
 * The secret-manager contract: Hadoop's black-box behaviours 1-10 for every manager, and 13, 14
 * and 20 for managers that share a store. Run against each implementation with its own store
 * factory.
 */
export function describeSecretManagerContract(
  name: string,
  openStore: () => ContractStore | Promise<ContractStore>,
  settings: ContractSettings,
): void {
  describe(`secret manager contract: ${name}`, () => {
    let store: ContractStore;
    let clock: ManualClock;

    beforeEach(async () => {
      clock = new ManualClock(T0);
      store = await openStore();
    });
    afterEach(async () => {
      await store.close();
    });

    const make = (options: DelegationTokenSecretManagerOptions = {}): Promise<DelegationTokenSecretManager> =>
      store.create({ clock, taskIntervalMs: 0, kerberosNameRules: RULES, ...options });

    const keyBytes = async (m: DelegationTokenSecretManager, keyId: number): Promise<Buffer> => {
      const key = (await m.getAllKeys()).find((k) => k.keyId === keyId);
      if (!key?.key) throw new Error(`no key ${keyId}`);
      return key.key.unwrap();
    };
    const identifierOf = (m: DelegationTokenSecretManager, t: Token): DelegationTokenIdentifier =>
      m.decodeToken(t).identifier;
    const withPassword = (t: Token, password: Buffer): Token =>
      new Token({
        identifier: t.identifier,
        password: new Redacted(password),
        kind: t.kind,
        service: t.service,
      });
    const reject = async (p: Promise<unknown>): Promise<Error> => {
      try {
        await p;
      } catch (error) {
        return error as Error;
      }
      throw new Error('expected a rejection');
    };

    it('1: a new token carries now, now + max lifetime, the current key and a fresh number, and verifies', async () => {
      const m = await make({ tokenMaxLifetimeMs: 7_000_000 });
      const a = await m.createToken({ owner: 'alice', renewer: 'yarn', service: 'kms:9600' });
      const b = await m.createToken({ owner: 'alice', renewer: 'yarn' });
      const id = identifierOf(m, a);
      expect(id.toFields()).toEqual({
        owner: 'alice',
        renewer: 'yarn',
        realUser: '',
        issueDate: T0,
        maxDate: T0 + 7_000_000,
        sequenceNumber: id.sequenceNumber,
        masterKeyId: m.currentKeyId,
      });
      expect(identifierOf(m, b).sequenceNumber).toBeGreaterThan(id.sequenceNumber);
      expect(a.kind).toBe('kms-dt');
      expect(a.service).toBe('kms:9600');
      const expected = createHmac('sha1', await keyBytes(m, id.masterKeyId))
        .update(a.identifier)
        .digest();
      expect(a.password.unwrap().equals(expected)).toBe(true);
      expect(a.password.unwrap()).toHaveLength(20);
      await expect(m.verifyToken(id, a.password)).resolves.toBeUndefined();
      expect((await m.verify(a.toUrlString())).equals(id)).toBe(true);
      expect((await m.retrievePassword(id)).unwrap().equals(expected)).toBe(true);
    });

    it('1: the renewer is stored as its Kerberos short name, and a proxy token keeps its real user', async () => {
      const m = await make();
      const t = await m.createToken({
        owner: 'bob',
        renewer: 'yarn/rm.example.com@EXAMPLE.COM',
        realUser: 'oozie',
      });
      const id = identifierOf(m, t);
      expect(id.renewer).toBe('yarn');
      expect(id.realUser).toBe('oozie');
      await m.verify(t);
    });

    it('1: a renewer or canceller of another realm matches no rule and is refused, as in Hadoop', async () => {
      const m = await make();
      const create = await reject(m.createToken({ owner: 'bob', renewer: 'yarn/rm.example.com@OTHER.COM' }));
      expect(create).toMatchObject({ code: 'ERR_TOKEN_ACCESS_DENIED', reason: 'unmapped-principal' });
      expect(create.message).toBe('renewer: No rules applied to yarn/rm.example.com@OTHER.COM');
      expect(create.cause).toBeInstanceOf(NoMatchingKerberosRuleError);
      // A service/host name without a realm matches DEFAULT no more than another realm does.
      await expect(m.createToken({ owner: 'bob', renewer: 'a/a' })).rejects.toMatchObject({
        reason: 'unmapped-principal',
      });
      const t = await m.createToken({ owner: 'alice', renewer: 'yarn' });
      const cancel = await reject(m.cancelToken(t, 'yarn/rm.example.com@OTHER.COM'));
      expect(cancel).toMatchObject({ code: 'ERR_TOKEN_ACCESS_DENIED', reason: 'unmapped-principal' });
      expect(cancel.message).toBe('canceller: No rules applied to yarn/rm.example.com@OTHER.COM');
      await m.verify(t); // still there
      // Under the mit mechanism an unmapped principal keeps its full name instead.
      const mit = await make({
        kerberosNameRules: new KerberosNameRules('DEFAULT', {
          defaultRealm: 'EXAMPLE.COM',
          mechanism: 'mit',
        }),
      });
      expect(
        identifierOf(mit, await mit.createToken({ owner: 'bob', renewer: 'yarn@OTHER.COM' })).renewer,
      ).toBe('yarn@OTHER.COM');
    });

    it("2: a wrong password or an unknown identifier is refused with Hadoop's messages", async () => {
      const m = await make();
      const t = await m.createToken({ owner: 'alice', renewer: 'yarn' });
      const id = identifierOf(m, t);
      const wrong = Buffer.from(t.password.unwrap());
      wrong[0] = (wrong[0] ?? 0) ^ 1;
      const e1 = await reject(m.verifyToken(id, wrong));
      expect(e1).toBeInstanceOf(InvalidTokenError);
      expect(e1.message).toBe(`token (${String(id)}) is invalid, password doesn't match`);
      expect(await reject(m.verifyToken(id, Buffer.alloc(3)))).toMatchObject({ reason: 'password-mismatch' });

      const unknown = id.with({ sequenceNumber: id.sequenceNumber + 1000, realUser: 'ru' });
      const e2 = await reject(m.verifyToken(unknown, t.password));
      expect(e2).toMatchObject({ code: 'ERR_INVALID_TOKEN', reason: 'not-found' });
      expect(e2.message).toBe("Token for real user: ru, can't be found in cache");
    });

    it('2: an identifier altered but presented with the genuine password is refused', async () => {
      const m = await make();
      const t = await m.createToken({ owner: 'alice', renewer: 'yarn' });
      const forged = identifierOf(m, t).with({ owner: 'root' });
      const e = await reject(m.verifyToken(forged, t.password));
      expect(e).toBeInstanceOf(InvalidTokenError);
    });

    it('2: garbage, truncated or foreign-kind token strings are refused as malformed', async () => {
      const m = await make();
      const t = await m.createToken({ owner: 'alice' });
      for (const s of ['', '!!!!', t.toUrlString().slice(0, 10)]) {
        expect(await reject(m.verify(s))).toMatchObject({ code: 'ERR_INVALID_TOKEN', reason: 'malformed' });
      }
      const foreign = new Token({
        identifier: t.identifier,
        password: t.password,
        kind: 'HDFS_DELEGATION_TOKEN',
        service: '',
      });
      expect(await reject(m.verify(foreign))).toMatchObject({ reason: 'malformed' });
    });

    it('3: a token not renewed within the renew interval is refused as expired', async () => {
      const m = await make({ tokenRenewIntervalMs: 1000 });
      const t = await m.createToken({ owner: 'alice', renewer: 'yarn' });
      await m.verify(t);
      clock.advance(2000);
      const e = await reject(m.verify(t));
      expect(e).toMatchObject({ code: 'ERR_INVALID_TOKEN', reason: 'expired' });
      expect(e.message).toBe(
        'Token  has expired, current time: 2024-03-01 00:00:02,000+0000 expected renewal time: 2024-03-01 00:00:01,000+0000',
      );
      await expect(m.retrievePassword(identifierOf(m, t))).rejects.toBeInstanceOf(InvalidTokenError);
    });

    it('4: renewal by anyone but the renewer is denied', async () => {
      const m = await make();
      const t = await m.createToken({ owner: 'alice', renewer: 'yarn' });
      const e = await reject(m.renewToken(t, 'mallory'));
      expect(e).toBeInstanceOf(AccessControlError);
      expect(e).toMatchObject({ code: 'ERR_TOKEN_ACCESS_DENIED', reason: 'renewer-mismatch' });
      expect(e.message).toBe(
        `mallory tries to renew a token (${String(identifierOf(m, t))}) with non-matching renewer yarn`,
      );
    });

    it('5: renewal returns min(maxDate, now + renew interval), later renewals return later times', async () => {
      const m = await make({ tokenRenewIntervalMs: 10_000, tokenMaxLifetimeMs: 25_000 });
      const t = await m.createToken({ owner: 'alice', renewer: 'yarn' });
      clock.advance(100);
      const first = await m.renewToken(t, 'yarn');
      expect(first).toBe(T0 + 100 + 10_000);
      clock.advance(100);
      const second = await m.renewToken(t, 'yarn');
      expect(second).toBeGreaterThan(first);
      clock.advance(20_000); // past the first renewal's date, before max date
      await expect(m.verify(t)).rejects.toMatchObject({ reason: 'expired' });
      expect(await m.renewToken(t, 'yarn')).toBe(T0 + 25_000); // clamped to max date
      await m.verify(t); // valid again after renewal
    });

    it('5: a renewal with a tampered password is denied', async () => {
      const m = await make();
      const t = await m.createToken({ owner: 'alice', renewer: 'yarn' });
      const e = await reject(m.renewToken(withPassword(t, Buffer.alloc(20, 7)), 'yarn'));
      expect(e).toMatchObject({ code: 'ERR_TOKEN_ACCESS_DENIED', reason: 'wrong-password' });
      expect(e.message).toBe(
        `yarn is trying to renew a token (${String(identifierOf(m, t))}) with wrong password`,
      );
    });

    it('6: renewal after max date is refused; a token without renewer cannot be renewed', async () => {
      const m = await make({ tokenMaxLifetimeMs: 5000, tokenRenewIntervalMs: 10_000 });
      const t = await m.createToken({ owner: 'alice', renewer: 'yarn' });
      clock.advance(6000);
      const e = await reject(m.renewToken(t, 'yarn'));
      expect(e).toMatchObject({ code: 'ERR_INVALID_TOKEN', reason: 'renew-expired' });
      expect(e.message).toBe(
        `yarn tried to renew an expired token (${String(identifierOf(m, t))}) max expiration date: ` +
          '2024-03-01 00:00:05,000+0000 currentTime: 2024-03-01 00:00:06,000+0000',
      );
      const noRenewer = await m.createToken({ owner: 'alice' });
      const e2 = await reject(m.renewToken(noRenewer, 'yarn'));
      expect(e2).toMatchObject({ code: 'ERR_TOKEN_ACCESS_DENIED', reason: 'no-renewer' });
      expect(e2.message).toBe(
        `yarn tried to renew a token (${String(identifierOf(m, noRenewer))}) without a renewer`,
      );
    });

    it('7: the owner and the renewer may cancel; afterwards renew, verify and cancel fail', async () => {
      const m = await make();
      const byOwner = await m.createToken({ owner: 'alice', renewer: 'yarn' });
      const byRenewer = await m.createToken({ owner: 'alice', renewer: 'yarn' });
      expect((await m.cancelToken(byOwner, 'alice')).equals(identifierOf(m, byOwner))).toBe(true);
      await m.cancelToken(byRenewer, 'yarn/rm.example.com@EXAMPLE.COM');
      for (const t of [byOwner, byRenewer]) {
        const id = identifierOf(m, t);
        const renew = await reject(m.renewToken(t, 'yarn'));
        expect(renew).toMatchObject({ reason: 'unknown-token' });
        expect(renew.message).toBe(`Renewal request for unknown token (${String(id)})`);
        await expect(m.verify(t)).rejects.toMatchObject({ reason: 'not-found' });
        const again = await reject(m.cancelToken(t, 'alice'));
        expect(again).toMatchObject({ code: 'ERR_INVALID_TOKEN', reason: 'cancel-not-found' });
        expect(again.message).toBe(`Token not found (${String(id)})`);
      }
    });

    it('8: a third party may not cancel', async () => {
      const m = await make();
      const t = await m.createToken({ owner: 'alice', renewer: 'yarn' });
      const e = await reject(m.cancelToken(t, 'mallory'));
      expect(e).toMatchObject({ code: 'ERR_TOKEN_ACCESS_DENIED', reason: 'cancel-not-authorized' });
      expect(e.message).toBe(`mallory is not authorized to cancel the token (${String(identifierOf(m, t))})`);
      await m.verify(t);
      const anonymous = await m.createToken({ owner: '' });
      expect(await reject(m.cancelToken(anonymous, 'alice'))).toMatchObject({
        reason: 'no-owner',
        message: 'Token with no owner',
      });
    });

    it('9: a key roll adds a key; older tokens keep verifying and renewing; expired keys go', async () => {
      const m = await make({
        keyUpdateIntervalMs: 1000,
        tokenMaxLifetimeMs: 5000,
        tokenRenewIntervalMs: 5000,
      });
      const before = await m.createToken({ owner: 'alice', renewer: 'yarn' });
      const firstKey = m.currentKeyId;
      await m.rollMasterKey();
      expect(m.currentKeyId).not.toBe(firstKey);
      const ids = (await m.getAllKeys()).map((k) => k.keyId);
      expect(ids).toEqual(expect.arrayContaining([firstKey, m.currentKeyId]));
      const after = await m.createToken({ owner: 'alice', renewer: 'yarn' });
      expect(identifierOf(m, after).masterKeyId).toBe(m.currentKeyId);
      await m.verify(before);
      await m.verify(after);
      await m.renewToken(before, 'yarn');
      // The retired key lives until roll time + max lifetime; after that a roll drops it.
      clock.advance(5001);
      await m.rollMasterKey();
      await m.rollMasterKey();
      expect((await m.getAllKeys()).map((k) => k.keyId)).not.toContain(firstKey);
    });

    it(`10: ${settings.concurrency.clients} clients × ${settings.concurrency.perClient} creations give distinct, verifiable tokens`, async () => {
      const m = await make();
      const { clients, perClient } = settings.concurrency;
      const tokens = (
        await Promise.all(
          Array.from({ length: clients }, async (_, c) => {
            const mine: Token[] = [];
            for (let i = 0; i < perClient; i++)
              mine.push(await m.createToken({ owner: `user${c}`, renewer: 'yarn' }));
            return mine;
          }),
        )
      ).flat();
      const seqs = new Set(tokens.map((t) => identifierOf(m, t).sequenceNumber));
      expect(seqs.size).toBe(clients * perClient);
      const keys = new Map((await m.getAllKeys()).map((k) => [k.keyId, k.key?.unwrap()]));
      const badPasswords = tokens.filter((t) => {
        const key = keys.get(identifierOf(m, t).masterKeyId);
        return !key || !createHmac('sha1', key).update(t.identifier).digest().equals(t.password.unwrap());
      });
      expect(badPasswords).toHaveLength(0);
      await Promise.all(tokens.map((t) => m.verify(t)));
    });

    it('expired tokens are removed by the scan and owner statistics follow', async () => {
      const m = await make({ tokenRenewIntervalMs: 1000, tokenMaxLifetimeMs: 10_000 });
      const stale = await m.createToken({ owner: 'alice', renewer: 'yarn' });
      const fresh = await m.createToken({ owner: 'bob', realUser: 'oozie', renewer: 'yarn' });
      await waitFor('both tokens cached', () => m.tokenCount === 2);
      clock.advance(900);
      await m.renewToken(fresh, 'yarn');
      clock.advance(200);
      const removed = await m.removeExpiredTokens();
      expect(removed.map((id) => id.sequenceNumber)).toEqual([identifierOf(m, stale).sequenceNumber]);
      await m.verify(fresh);
      await expect(m.verify(stale)).rejects.toBeInstanceOf(InvalidTokenError);
      expect(m.getTopTokenRealOwners(5)).toEqual([{ owner: 'oozie', count: 1 }]);
    });

    it('stores tracking ids when asked to', async () => {
      const m = await make({ storeTokenTrackingId: true });
      const t = await m.createToken({ owner: 'alice', renewer: 'yarn' });
      const id = identifierOf(m, t);
      await m.verify(t);
      expect(await m.getTokenTrackingId(id)).toMatch(/^[0-9a-f]{32}$/);
    });

    it('uses a configured algorithm and key length (HmacSHA256, 32 bytes)', async () => {
      const m = await make({ hmacAlgorithm: 'HmacSHA256', masterKeyLengthBytes: 32 });
      const t = await m.createToken({ owner: 'alice' });
      const id = identifierOf(m, t);
      const key = await keyBytes(m, id.masterKeyId);
      expect(key).toHaveLength(32);
      expect(t.password.unwrap().equals(createHmac('sha256', key).update(t.identifier).digest())).toBe(true);
      await m.verify(t);
    });

    it('creates and verifies the same way with global creation locking', async () => {
      const m = await make({ creationLocking: 'global' });
      const tokens = await Promise.all(Array.from({ length: 20 }, () => m.createToken({ owner: 'alice' })));
      expect(new Set(tokens.map((t) => identifierOf(m, t).sequenceNumber)).size).toBe(20);
      await Promise.all(tokens.map((t) => m.verify(t)));
    });

    it('a creation whose signal already fired issues nothing', async () => {
      const m = await make();
      const controller = new AbortController();
      controller.abort(new Error('client went away'));
      await expect(m.createToken({ owner: 'alice' }, { signal: controller.signal })).rejects.toMatchObject({
        code: 'ERR_TOKEN_CREATION_ABORTED',
        retriable: true,
      });
      const t = await m.createToken({ owner: 'alice' });
      await m.verify(t);
    });

    if (settings.shared) {
      it('13: a token created on A verifies and renews on B; cancel on A is seen by B', async () => {
        const a = await make();
        const b = await make();
        const t = await a.createToken({ owner: 'alice', renewer: 'yarn' });
        await b.verify(t);
        clock.advance(1000);
        const renewed = await b.renewToken(t, 'yarn');
        expect(renewed).toBe(T0 + 1000 + 86_400_000);
        await a.verify(t);
        await a.cancelToken(t, 'alice');
        await waitFor('B to reject the cancelled token', () =>
          b.verify(t).then(
            () => false,
            () => true,
          ),
        );
      });

      it('14: a manager started later verifies old tokens, rejects cancelled ones, and is trusted back', async () => {
        const a = await make();
        const live = await a.createToken({ owner: 'alice', renewer: 'yarn' });
        const cancelled = await a.createToken({ owner: 'alice', renewer: 'yarn' });
        await a.cancelToken(cancelled, 'alice');
        const b = await make();
        await b.verify(live);
        await expect(b.verify(cancelled)).rejects.toBeInstanceOf(InvalidTokenError);
        const fromB = await b.createToken({ owner: 'carol', renewer: 'yarn' });
        await a.verify(fromB);
        await b.stop();
        const c = await make();
        await c.verify(live);
        await c.verify(fromB);
      });

      it('20: two managers creating concurrently never share a sequence number', async () => {
        const a = await make();
        const b = await make();
        const { clients, perClient } = settings.concurrency;
        const run = (m: DelegationTokenSecretManager): Promise<Token[][]> =>
          Promise.all(
            Array.from({ length: Math.max(1, clients / 2) }, async () => {
              const mine: Token[] = [];
              for (let i = 0; i < perClient; i++) mine.push(await m.createToken({ owner: 'alice' }));
              return mine;
            }),
          );
        const [fromA, fromB] = await Promise.all([run(a), run(b)]);
        const all = [...fromA.flat(), ...fromB.flat()];
        const seqs = all.map((t) => identifierOf(a, t).sequenceNumber);
        expect(new Set(seqs).size).toBe(all.length);
        await Promise.all(all.map((t) => a.verify(t)));
        await Promise.all(all.map((t) => b.verify(t)));
      });
    }
  });
}
