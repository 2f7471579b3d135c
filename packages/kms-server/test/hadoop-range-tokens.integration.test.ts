import { createHmac } from 'node:crypto';
import { Redacted } from '@fastpath/core';
import {
  decodeTokenNode,
  DelegationKey,
  DelegationTokenIdentifier,
  encodeTokenNode,
  Token,
} from '@fastpath/hadoop-common';
import { zkCreate, zkExists, zkGetData, zkMkdirp } from '@fastpath/zookeeper-fixture';
import { useZooKeeper, type TestZooKeeperClient } from '@fastpath/zookeeper-fixture/jest';
import { startTestKms, type TestKms } from './support/test-kms.js';

// A Hadoop KMS sharing the ZooKeeper token store writes master keys and tokens whose dates are any
// Java long (a maxDate of Long.MAX_VALUE for tokens that never expire) and whose ids are any Java
// int. Such a token, put into ZooKeeper exactly as Hadoop lays it out, must authenticate a real
// HTTP request to fastpath-kms, renew, and be written back with its identifier byte for byte.

const ZK = 'hadoop.kms.authentication.zk-dt-secret-manager.';
const DAY_MS = 86_400_000;
const LONG_MAX = (1n << 63n) - 1n;
const LONG_MIN = -(1n << 63n);

const zk = useZooKeeper();
let client: TestZooKeeperClient;
beforeAll(async () => {
  client = await zk.client();
});

describe('tokens with Hadoop-range fields through fastpath-kms', () => {
  let kms: TestKms | undefined;
  afterEach(async () => {
    await kms?.[Symbol.asyncDispose]();
    kms = undefined;
  });

  it.each<[string, bigint, bigint, number, number]>([
    [
      'maxDate 2^63-1, the largest sequence number, the smallest key id',
      0n,
      LONG_MAX,
      2 ** 31 - 1,
      -(2 ** 31),
    ],
    ['issueDate -2^63, dates beyond 2^53', LONG_MIN, (1n << 53n) + 1n, -1, -1],
  ])(
    'serves, renews and cancels a token with %s',
    async (_label, issueDate, maxDate, sequenceNumber, keyId) => {
      const path = zk.uniquePath('hadoop-range');
      const root = `/${path}/ZKDTSMRoot`;
      const material = Buffer.alloc(8, 5);
      const identifier = new DelegationTokenIdentifier('kms-dt', {
        owner: 'alice',
        renewer: 'yarn',
        realUser: '',
        issueDate,
        maxDate,
        sequenceNumber,
        masterKeyId: keyId,
      });
      const password = createHmac('sha1', material).update(identifier.bytes).digest();
      const node = `${root}/ZKDTSMTokensRoot/DT_${sequenceNumber}`;
      await zkMkdirp(client, `${root}/ZKDTSMMasterKeyRoot`);
      await zkMkdirp(client, `${root}/ZKDTSMTokensRoot`);
      await zkCreate(
        client,
        `${root}/ZKDTSMMasterKeyRoot/DK_${keyId}`,
        new DelegationKey({ keyId, expiryDate: LONG_MAX, key: material }).encode(),
      );
      await zkCreate(
        client,
        node,
        encodeTokenNode({ identifier: identifier.bytes, renewDate: BigInt(Date.now() + DAY_MS), password }),
      );

      kms = await startTestKms({
        site: {
          [`${ZK}enable`]: 'true',
          [`${ZK}zkConnectionString`]: zk.connectString,
          [`${ZK}znodeWorkingPath`]: path,
          [`${ZK}zkAuthType`]: 'none',
        },
      });
      const base = await kms.server.listen();
      const url = new Token({
        identifier: identifier.bytes,
        password: new Redacted(password),
        kind: 'kms-dt',
        service: '',
      }).toUrlString();

      const names = await fetch(`${base}/kms/v1/keys/names?delegation=${url}`);
      expect(names.status).toBe(200);
      expect(await names.json()).toEqual([]);

      const before = Date.now();
      const renewed = await fetch(`${base}/kms/v1/?op=RENEWDELEGATIONTOKEN&token=${url}&user.name=yarn`, {
        method: 'PUT',
      });
      expect(renewed.status).toBe(200);
      const { long: renewDate } = (await renewed.json()) as { long: number };
      expect(renewDate).toBeGreaterThanOrEqual(before);
      // Written back as Hadoop reads it: the identifier unchanged to the byte, the new renew date.
      const stored = decodeTokenNode('kms-dt', (await zkGetData(client, node)).data);
      expect(stored.identifier.bytes.equals(identifier.bytes)).toBe(true);
      expect([stored.identifier.issueDateLong, stored.identifier.maxDateLong]).toEqual([issueDate, maxDate]);
      expect(stored.renewDate).toBe(renewDate);
      expect(stored.password.equals(password)).toBe(true);

      const forged = new Token({
        identifier: identifier.bytes,
        password: new Redacted(Buffer.alloc(20, 1)),
        kind: 'kms-dt',
        service: '',
      }).toUrlString();
      expect((await fetch(`${base}/kms/v1/keys/names?delegation=${forged}`)).status).toBe(403);

      const cancelled = await fetch(`${base}/kms/v1/?op=CANCELDELEGATIONTOKEN&token=${url}&user.name=alice`, {
        method: 'PUT',
      });
      expect(cancelled.status).toBe(200);
      expect(await zkExists(client, node)).toBeNull();
      expect((await fetch(`${base}/kms/v1/keys/names?delegation=${url}`)).status).toBe(403);
    },
  );
});
