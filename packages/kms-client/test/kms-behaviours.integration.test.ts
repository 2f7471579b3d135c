// Behaviours 21-42 of the Hadoop KMS (test/support/kms-behaviours.ts), checked over real HTTP with
// this client against @fastpath/kms-server on port 0: once with the in-memory token store and once
// with the ZooKeeper token store on a real ZooKeeper. Then two server processes sharing one
// ZooKeeper: a token issued by one is accepted, renewed and cancelled through the other.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useZooKeeper } from '@fastpath/zookeeper-fixture/jest';
import { KmsClient, KmsError } from '../src/index.js';
import { failure } from './support/failure.js';
import { defineKmsBehaviours, fastpathBehaviourTarget, zkSite } from './support/kms-behaviours.js';
import { startKmsProcess } from './support/kms-process.js';
import type { KmsProcess } from './support/kms-process.js';
import { waitFor } from '@fastpath/test-support';

jest.setTimeout(120_000);

describe('KMS behaviours 21-42 over HTTP', () => {
  describe('with the in-memory token store', () => {
    defineKmsBehaviours(fastpathBehaviourTarget(() => ({})));
  });

  describe('with the ZooKeeper token store', () => {
    const zk = useZooKeeper();
    defineKmsBehaviours(fastpathBehaviourTarget(() => zkSite(zk)));

    it('two server processes sharing one ZooKeeper: a token of one is accepted, renewed and cancelled through the other', async () => {
      const site = zkSite(zk);
      const dirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'kms-client-proc-')));
      const processes: KmsProcess[] = [];
      const clients: KmsClient[] = [];
      try {
        // Started one after the other: on a small machine two cold starts at once only compete.
        for (const dir of dirs) processes.push(await startKmsProcess({ dataDir: join(dir, 'data'), site }));
        const [a, b] = processes.map((p) => {
          const client = new KmsClient({ url: p.url, user: 'alice' });
          clients.push(client);
          return client;
        }) as [KmsClient, KmsClient];
        await a.createKey('on-a');
        await b.createKey('on-b');

        const token = await a.getDelegationToken({ renewer: 'alice' });
        // Accepted by B: B's keystore is its own, the token store is shared.
        expect(await b.withAuth({ delegationToken: token }).getKeyNames()).toEqual(['on-b']);
        const renewed = await b.renewDelegationToken(token);
        expect(renewed).toBeGreaterThan(Date.now());
        expect(await a.withAuth({ delegationToken: token }).getKeyNames()).toEqual(['on-a']);
        await b.withAuth({}).cancelDelegationToken(token);
        expect((await failure(b.withAuth({ delegationToken: token }).getKeyNames())).code).toBe(
          'ERR_KMS_AUTHENTICATION_FAILED',
        );
        // A learns of the cancellation through ZooKeeper.
        await waitFor(
          'the cancellation to reach the other server',
          async () =>
            (await a
              .withAuth({ delegationToken: token })
              .getKeyNames()
              .catch((e: unknown) => e)) instanceof KmsError,
          { timeoutMs: 15_000 },
        );
        expect((await failure(a.withAuth({ delegationToken: token }).getKeyNames())).code).toBe(
          'ERR_KMS_AUTHENTICATION_FAILED',
        );
        expect((await failure(a.renewDelegationToken(token))).code).toBe('ERR_KMS_AUTHENTICATION_FAILED');

        // And the other way round.
        const fromB = await b.getDelegationToken({ renewer: 'alice' });
        expect(fromB.sequenceNumber).not.toBe(token.sequenceNumber);
        expect(await a.withAuth({ delegationToken: fromB }).getKeyNames()).toEqual(['on-a']);
        expect(await a.renewDelegationToken(fromB)).toBeGreaterThan(Date.now());
        await a.cancelDelegationToken(fromB);
        expect((await failure(a.withAuth({ delegationToken: fromB }).getKeyNames())).code).toBe(
          'ERR_KMS_AUTHENTICATION_FAILED',
        );
      } finally {
        for (const client of clients) await client.close();
        for (const p of processes) await p.stop();
        for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
