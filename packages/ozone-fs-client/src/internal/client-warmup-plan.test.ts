import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { runWarmup } from '@fastpath/client-warmup';
import { DEFAULT_OZONE_CLIENT_CONFIG } from '../ozone-client-config.js';
import { createTlsFixture } from '../testing/tls-fixture.js';
import { clientWarmupPlan } from './client-warmup-plan.js';
import { DatanodeClientManager } from './grpc/datanode-client-manager.js';

const dir = mkdtempSync(join(tmpdir(), 'fastpath-warmup-plan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function manager(): DatanodeClientManager {
  return new DatanodeClientManager({
    maxReceiveBytes: 1 << 25,
    maxInFlight: 4,
    tls: undefined,
    reconnectBackoffMs: 1000,
  });
}

describe('clientWarmupPlan', () => {
  it('without TLS warms the datanode protocol and the checksums only', async () => {
    const plan = clientWarmupPlan({
      config: DEFAULT_OZONE_CLIENT_CONFIG,
      tls: undefined,
      datanodes: manager(),
    });
    expect(plan.steps.map((s) => s.name)).toEqual(['datanode-protocol', 'checksum']);
    const outcomes = await runWarmup(plan).done;
    expect(outcomes.map((o) => o.state)).toEqual(['done', 'done']);
  });

  it('with TLS adds the TLS step, which hands its credentials to the datanode channels', async () => {
    const { caFile } = await createTlsFixture(join(dir, 'tls'));
    const datanodes = manager();
    const plan = clientWarmupPlan({ config: DEFAULT_OZONE_CLIENT_CONFIG, tls: { caFile }, datanodes });
    expect(plan.steps.map((s) => s.name)).toEqual(['datanode-protocol', 'checksum', 'tls-credentials']);
    expect(datanodes.hasWarmCredentials).toBe(false);
    const outcomes = await runWarmup(plan).done;
    expect(outcomes.map((o) => o.state)).toEqual(['done', 'done', 'done']);
    expect(datanodes.hasWarmCredentials).toBe(true);
  });

  it('leaves the TLS step out when ozone.client.warmup.tls.enabled is false', () => {
    const config = { ...DEFAULT_OZONE_CLIENT_CONFIG, warmupTlsEnabled: false };
    const plan = clientWarmupPlan({ config, tls: { caFile: join(dir, 'ca.pem') }, datanodes: manager() });
    expect(plan.steps.map((s) => s.name)).toEqual(['datanode-protocol', 'checksum']);
  });

  it('an unreadable CA file fails the TLS step alone; the channels then build their own credentials', async () => {
    const datanodes = manager();
    const plan = clientWarmupPlan({
      config: DEFAULT_OZONE_CLIENT_CONFIG,
      tls: { caFile: join(dir, 'missing-ca.pem') },
      datanodes,
    });
    const outcomes = await runWarmup(plan).done;
    expect(outcomes.map((o) => [o.name, o.state])).toEqual([
      ['datanode-protocol', 'done'],
      ['checksum', 'done'],
      ['tls-credentials', 'failed'],
    ]);
    expect(outcomes[2]?.error).toContain('ENOENT');
    expect(datanodes.hasWarmCredentials).toBe(false);
  });

  it('a closed manager takes no credentials', async () => {
    const { caFile } = await createTlsFixture(join(dir, 'tls2'));
    const datanodes = manager();
    datanodes.close();
    await runWarmup(clientWarmupPlan({ config: DEFAULT_OZONE_CLIENT_CONFIG, tls: { caFile }, datanodes }))
      .done;
    expect(datanodes.hasWarmCredentials).toBe(false);
  });
});
