// An OM that was down and came back: the client's next calls reach it. gRPC waits 1 s after a
// failed connection attempt and 1.6 times longer after each further one, keeps attempting while
// calls are made, and fails a call made during the wait without trying; with its defaults an OM
// down for a few seconds stayed unreachable for seconds after it was back. The client bounds that
// wait (`omReconnectBackoffMs`, 1 s by default; 100 ms here so that the test is short).
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { createOzoneClient, type OzoneClient } from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';

let cluster: MiniOzoneCluster;
let client: OzoneClient;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  cluster = await startMiniOzoneCluster({ datanodes: 1 });
  client = createOzoneClient({ omAddress: cluster.omAddress, omTimeoutMs: 2000, omReconnectBackoffMs: 100 });
  await client.createVolume('vol1');
});
afterAll(async () => {
  client?.close();
  await cluster?.close();
});

it('fails fast and retriable while the OM is down, and reaches it again within a few backoffs once it is back', async () => {
  cluster.stopOm();
  // Calls while it is down, as an application retrying every 100 ms would make them: 3 s of
  // these grew gRPC's own wait to 2.6-5 s.
  const errors: unknown[] = [];
  for (const until = Date.now() + 3000; Date.now() < until; await sleep(100))
    errors.push(await client.getVolume('vol1').catch((e: unknown) => e));
  expect(errors.length).toBeGreaterThan(5);
  for (const err of errors) expect(err).toMatchObject({ code: 'ERR_OZONE_UNAVAILABLE', retriable: true });

  await cluster.startOm();
  // Ten calls 50 ms apart: half a second, five times the bound.
  let answered: { name: string } | undefined;
  for (let i = 0; i < 10 && answered === undefined; i++) {
    answered = await client.getVolume('vol1').catch(() => undefined);
    if (answered === undefined) await sleep(50);
  }
  expect(answered?.name).toBe('vol1');
});

it('refuses a reconnect backoff that is not a positive integer, before connecting', () => {
  for (const omReconnectBackoffMs of [0, -1, 1.5, Number.NaN])
    expect(() => createOzoneClient({ omAddress: cluster.omAddress, omReconnectBackoffMs })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION' }),
    );
});
