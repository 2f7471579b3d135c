import { createHmac } from 'node:crypto';
import { ManualClock, Redacted } from '@fastpath/core';
import { DelegationKey, DelegationTokenIdentifier, Token } from '@fastpath/hadoop-common';
import { DelegationTokenSecretManager } from './delegation-token-secret-manager.js';

// Tokens a Hadoop secret manager can persist carry dates anywhere in the Java long range (a
// maxDate of Long.MAX_VALUE for tokens that never expire) and sequence numbers and key ids
// anywhere in the int range. A manager that loads them must verify and renew them like any other.

const T0 = Date.parse('2024-03-01T00:00:00Z');
const DAY_MS = 86_400_000;
const LONG_MAX = (1n << 63n) - 1n;
const LONG_MIN = -(1n << 63n);

describe('verifying tokens with Hadoop-range fields', () => {
  const managers: DelegationTokenSecretManager[] = [];
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((m) => m.stop()));
  });

  it.each<[string, bigint, bigint, number, number]>([
    ['maxDate 2^63-1', 0n, LONG_MAX, 2 ** 31 - 1, -(2 ** 31)],
    ['issueDate -2^63', LONG_MIN, LONG_MAX, -(2 ** 31), -1],
    ['dates around 2^53', -(1n << 53n), (1n << 53n) + 1n, -1, 0],
    // Key id 2^31-2: start() rolls a new master key with the next id, which must still be an int.
    ['dates of ±2^31 ms', -(1n << 31n), BigInt(T0) + (1n << 31n), 0, 2 ** 31 - 2],
  ])(
    'verifies and renews a loaded token with %s',
    async (_label, issueDate, maxDate, sequenceNumber, keyId) => {
      const clock = new ManualClock(T0);
      const manager = new DelegationTokenSecretManager({
        clock,
        taskIntervalMs: 0,
        tokenRenewIntervalMs: DAY_MS,
      });
      managers.push(manager);
      const material = Buffer.alloc(8, 7);
      await manager.addKey(new DelegationKey({ keyId, expiryDate: LONG_MAX, key: material }));
      const identifier = new DelegationTokenIdentifier('kms-dt', {
        owner: 'alice',
        renewer: 'yarn',
        realUser: '',
        issueDate,
        maxDate,
        sequenceNumber,
        masterKeyId: keyId,
      });
      await manager.addPersistedToken(identifier, T0 + DAY_MS);
      await manager.start();

      // The password as Hadoop computes it: HMAC-SHA1 of the identifier bytes under the master key.
      const password = createHmac('sha1', material).update(identifier.bytes).digest();
      const url = new Token({
        identifier: identifier.bytes,
        password: new Redacted(password),
        kind: 'kms-dt',
        service: '',
      }).toUrlString();

      const verified = await manager.verify(url);
      expect(verified.toFields()).toEqual(identifier.toFields());
      expect([verified.issueDateLong, verified.maxDateLong]).toEqual([issueDate, maxDate]);
      expect(verified.bytes.equals(identifier.bytes)).toBe(true);

      clock.advance(1000);
      expect(await manager.renewToken(url, 'yarn')).toBe(T0 + 1000 + DAY_MS);
      await expect(manager.verify(url)).resolves.toBeDefined();
      const forged = Buffer.from(password);
      forged[0] = (forged[0] ?? 0) ^ 1;
      await expect(manager.verifyToken(identifier, new Redacted(forged))).rejects.toMatchObject({
        code: 'ERR_INVALID_TOKEN',
        reason: 'password-mismatch',
      });
    },
  );
});
