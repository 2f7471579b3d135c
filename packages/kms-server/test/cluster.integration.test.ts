import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useZooKeeper } from '@fastpath/zookeeper-fixture/jest';
import { startKmsProcess, type KmsProcess } from '../src/testing.js';
import { http } from './support/http.js';
import { buildInfoOf, keyVersionOf, tokenUrlOf } from './support/kms-json.js';
import { waitFor } from '@fastpath/test-support';

const ZK = 'hadoop.kms.authentication.zk-dt-secret-manager.';
const zk = useZooKeeper();

async function workerIds(url: string, requests: number): Promise<Set<number | null>> {
  const ids = new Set<number | null>();
  for (let i = 0; i < requests; i++) ids.add(buildInfoOf((await http(`${url}/build-info`)).json()).worker);
  return ids;
}

describe('cluster mode (--workers N)', () => {
  it('serves one port from N processes sharing keys, tokens, cookies and metrics; restarts a dead worker', async () => {
    const path = zk.uniquePath('kms-cluster');
    const kms: KmsProcess = await startKmsProcess({
      args: [
        '--workers',
        '2',
        '-D',
        `${ZK}enable=true`,
        '-D',
        `${ZK}zkConnectionString=${zk.connectString}`,
        '-D',
        `${ZK}znodeWorkingPath=${path}`,
      ],
      env: { FASTPATH_KMS_KEYSTORE_PASSWORD: 'cluster-pass' },
    });
    try {
      expect(kms.workers).toBe(2);
      const info = buildInfoOf((await http(`${kms.url}/build-info`)).json());
      expect(info.workers).toBe(2);
      expect(info.tokenManager['implementation']).toBe('zookeeper');
      expect(info.keystore['replica']).toBe(true);
      let seen = new Set<number | null>();
      await waitFor('both workers to answer', async () => {
        seen = new Set([...seen, ...(await workerIds(kms.url, 4))]);
        return seen.size === 2;
      });

      // A key created through one worker is visible to every worker as soon as the create answered.
      expect(
        (await http(`${kms.url}/kms/v1/keys?user.name=alice`, { method: 'POST', body: { name: 'k1' } }))
          .status,
      ).toBe(201);
      for (let i = 0; i < 8; i++)
        expect((await http(`${kms.url}/kms/v1/keys/names?user.name=alice`)).json()).toEqual(['k1']);
      const rolled = await http(`${kms.url}/kms/v1/key/k1?user.name=alice`, { method: 'POST', body: {} });
      expect(keyVersionOf(rolled.json()).versionName).toBe('k1@1');
      for (let i = 0; i < 8; i++) {
        expect(
          keyVersionOf((await http(`${kms.url}/kms/v1/key/k1/_currentversion?user.name=alice`)).json())
            .versionName,
        ).toBe('k1@1');
      }
      expect(
        (await http(`${kms.url}/kms/v1/keys?user.name=alice`, { method: 'POST', body: { name: 'k1' } }))
          .status,
      ).toBe(409);

      // Tokens (ZooKeeper) and cookies (one secret) work on every worker.
      const token = tokenUrlOf(
        (await http(`${kms.url}/kms/v1/?op=GETDELEGATIONTOKEN&user.name=alice`)).json(),
      );
      const setCookie = String(
        (await http(`${kms.url}/kms/v1/keys/names?user.name=alice`)).headers['set-cookie'],
      );
      const cookie = setCookie.slice(0, setCookie.indexOf(';'));
      for (let i = 0; i < 8; i++) {
        expect((await http(`${kms.url}/kms/v1/keys/names?delegation=${token}`)).status).toBe(200);
        expect((await http(`${kms.url}/kms/v1/keys/names`, { headers: { cookie } })).status).toBe(200);
      }

      // Metrics are the sum over workers.
      const metrics = (await http(`${kms.url}/metrics`)).body;
      const created = /kms_requests_total\{op="CREATE_KEY",status="201"\} (\d+)/.exec(metrics);
      expect(Number(created?.[1])).toBe(1);
      const names = /kms_requests_total\{op="GET_KEYS",status="200"\} (\d+)/.exec(metrics);
      expect(Number(names?.[1])).toBeGreaterThanOrEqual(17);

      // A worker that dies is replaced.
      const victim = buildInfoOf((await http(`${kms.url}/build-info`)).json());
      process.kill(victim.pid, 'SIGKILL');
      let after = new Set<number | null>();
      await waitFor(
        'a replacement worker',
        async () => {
          try {
            after = new Set([...after, ...(await workerIds(kms.url, 4))]);
          } catch {
            // The dying worker's connections may fail while it goes.
          }
          return after.size >= 2 && !after.has(victim.worker);
        },
        { timeoutMs: 30_000 },
      );
      expect((await http(`${kms.url}/kms/v1/keys/names?user.name=alice`)).json()).toEqual(['k1']);
    } finally {
      expect((await kms.stop()).code).toBe(0);
    }
  }, 120_000);

  it('persists the keystore the workers changed, for a later single-process start', async () => {
    const path = zk.uniquePath('kms-cluster-persist');
    const dataDir = mkdtempSync(join(tmpdir(), 'kms-cluster-data-'));
    try {
      const cluster = await startKmsProcess({
        dataDir,
        args: [
          '--workers',
          '2',
          '-D',
          `${ZK}enable=true`,
          '-D',
          `${ZK}zkConnectionString=${zk.connectString}`,
          '-D',
          `${ZK}znodeWorkingPath=${path}`,
        ],
      });
      await http(`${cluster.url}/kms/v1/keys?user.name=a`, { method: 'POST', body: { name: 'persisted' } });
      expect((await cluster.stop()).code).toBe(0);
      const single = await startKmsProcess({ dataDir });
      expect((await http(`${single.url}/kms/v1/keys/names?user.name=a`)).json()).toEqual(['persisted']);
      await single.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
