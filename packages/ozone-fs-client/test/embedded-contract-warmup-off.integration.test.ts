// The client contract suite against the embedded mini cluster (plaintext) with the warm-up off
// (ozone.client.warmup.enabled=false): the same results as with it on, the default, which
// embedded-contract.integration.test.ts runs.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { currentWarmup } from '@fastpath/client-warmup';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import {
  describeOzoneContract,
  MINI_CLUSTER_CAPABILITIES,
  miniClusterAdapter,
} from '@fastpath/ozone-fs-client/testing/contract';

describe('Ozone client contract: embedded mini cluster, warm-up off', () => {
  let cluster: MiniOzoneCluster;
  beforeAll(async () => {
    cluster = await startMiniOzoneCluster({ datanodes: 3 });
  });
  afterAll(async () => {
    await cluster?.close();
  });
  describeOzoneContract(
    () => ({
      ...miniClusterAdapter(cluster),
      clientOptions: { properties: { 'ozone.client.warmup.enabled': 'false' } },
    }),
    MINI_CLUSTER_CAPABILITIES,
  );
  it('started no warm-up', () => {
    expect(currentWarmup()).toBeUndefined();
  });
});
