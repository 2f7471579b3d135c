// The erasure-coded half of the read contract: fastpath reads EC keys the cluster's own writer
// wrote (Ozone's Java client on a real cluster) of every size that sits on a layout edge, whole and
// in positional ranges across cell, stripe and block-group edges; then, with one and two data
// replicas' datanodes stopped, every key still reads back identical (rebuilt from parity), with a
// third stopped the typed error; and a replica corrupted on disk is found by its checksums and
// rebuilt.
import { afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import { ErasureUnrecoverableError, type KeyBlockLocation, type OzoneClient } from '../../index.js';
import { parseEcReplicationConfig } from '../../internal/ec/ec-stripe-layout.js';
import { contractKeyBytes } from './contract-key-bytes.js';
import { edgeRanges } from './edge-ranges.js';
import type { OzoneClusterAdapter, OzoneContractCapabilities } from './ozone-cluster-adapter.js';
import { freshVolume, suiteClient } from './suite-client.js';

interface EcKey {
  key: string;
  sizeBytes: number;
  seed: number;
}

/**
 * Registers the EC read suite. Call it inside a `describe` whose `beforeAll` starts a cluster with
 * at least d + p datanodes of `capabilities.ec.replication` (one more lets SCM choose); the
 * adapter must have `writeEcKey` and `stopDatanode` (and `corruptBlockReplica` for the corrupt
 * replica case).
 */
export function describeEcReads(
  adapter: () => OzoneClusterAdapter,
  capabilities: OzoneContractCapabilities & { ec: NonNullable<OzoneContractCapabilities['ec']> },
): void {
  const BUCKET = 'ecreads';
  const config = parseEcReplicationConfig(capabilities.ec.replication);
  const c = config.ecChunkSize;
  const stripe = c * config.data;
  const group = capabilities.ec.blockGroupBytes;
  const KEYS: EcKey[] = [
    ['empty', 0],
    ['one-byte', 1],
    ['cell-minus-one', c - 1],
    ['cell-plus-one', c + 1],
    ['stripe-minus-one', stripe - 1],
    ['stripe-plus-one', stripe + 1],
    ['groups', 2 * group + stripe + c + 7],
  ].map(([key, sizeBytes], i) => ({
    key: `ec-${key as string}`,
    sizeBytes: sizeBytes as number,
    seed: 350 + i,
  }));
  const GROUPS = KEYS[KEYS.length - 1]!;
  let volume = '';
  let client: OzoneClient;
  const restarts: Array<() => Promise<void>> = [];

  const expected = (k: EcKey): Buffer => contractKeyBytes(k.sizeBytes, k.seed);
  const stop = async (uuid: string): Promise<void> => {
    restarts.push(await adapter().stopDatanode!(uuid));
  };
  /** The datanode holding replica `index` of the key's first block group, as the OM lists it. */
  const holder = (block: KeyBlockLocation, index: number): string => {
    const at = block.ec!.replicaIndexes.indexOf(index);
    return block.datanodes[at]!.uuid;
  };

  beforeAll(async () => {
    const a = adapter();
    // Stopped datanodes fail at once: the replica streams do not sweep again.
    client = suiteClient(a, { readMaxRetries: 0, readRetryIntervalMs: 0 });
    volume = await freshVolume(client, 'ecr', BUCKET);
    for (const k of KEYS)
      await a.writeEcKey!({
        volume,
        bucket: BUCKET,
        ...k,
        replication: capabilities.ec.replication,
        blockGroupBytes: group,
      });
  });
  afterEach(async () => {
    for (const restart of restarts.splice(0)) await restart();
  });
  afterAll(async () => {
    for (const restart of restarts.splice(0)) await restart();
    client?.close();
  });

  it(`every key of ${capabilities.ec.replication}: the layout the OM lists, and the bytes whole, verified and not`, async () => {
    for (const k of KEYS) {
      const details = await client.getKeyInfo(volume, BUCKET, k.key);
      expect(details.replicationType).toBe('EC');
      for (const block of details.blocks) {
        expect(block.ec?.config).toEqual(config);
        expect(block.lengthBytes).toBeLessThanOrEqual(group);
      }
      // An empty key may have one empty group (the OM's preallocation) or none (Java's writer
      // commits only groups with data).
      if (k.sizeBytes === 0) expect(details.blocks.length).toBeLessThanOrEqual(1);
      else expect(details.blocks.length).toBe(Math.ceil(k.sizeBytes / group));
      for (const verifyChecksum of [true, false]) {
        const got = await client.readKey(volume, BUCKET, k.key, { verifyChecksum });
        expect({ key: k.key, verifyChecksum, same: got.equals(expected(k)) }).toEqual({
          key: k.key,
          verifyChecksum,
          same: true,
        });
      }
    }
  });

  it('positional reads across cell, stripe and block-group edges', async () => {
    const data = expected(GROUPS);
    const stream = await client.openKey(volume, BUCKET, GROUPS.key);
    try {
      for (const [position, length] of edgeRanges(GROUPS.sizeBytes, 80, c, 7)) {
        const got = await stream.readFully(position, length);
        if (!got.equals(data.subarray(position, position + length)))
          throw new Error(`bytes differ at ${position}+${length}`);
      }
      expect(stream.stats.ecStripesRebuilt).toBe(0);
    } finally {
      stream.close();
    }
  });

  it('one and then two data replicas down: every key reads back identical, rebuilt; a third: ERR_OZONE_EC_UNRECOVERABLE', async () => {
    const [first] = (await client.getKeyInfo(volume, BUCKET, GROUPS.key)).blocks;
    const readAll = async (): Promise<number> => {
      let rebuilt = 0;
      for (const k of KEYS) {
        const stream = await client.openKey(volume, BUCKET, k.key);
        try {
          const got = await stream.readFully(0, k.sizeBytes);
          expect({ key: k.key, same: got.equals(expected(k)) }).toEqual({ key: k.key, same: true });
          rebuilt += stream.stats.ecStripesRebuilt;
        } finally {
          stream.close();
        }
      }
      return rebuilt;
    };
    await stop(holder(first!, 1));
    expect(await readAll()).toBeGreaterThan(0);
    await stop(holder(first!, 2));
    expect(await readAll()).toBeGreaterThan(0);
    await stop(holder(first!, 3));
    const err = await client
      .readKey(volume, BUCKET, GROUPS.key)
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ErasureUnrecoverableError);
    expect(err).toMatchObject({ code: 'ERR_OZONE_EC_UNRECOVERABLE', neededUnits: config.data });
  });

  if (capabilities.corruptReplica) {
    it('a data replica corrupted on disk: found by its checksums and rebuilt from parity; read as stored unverified', async () => {
      const k = KEYS.find((x) => x.key === 'ec-stripe-plus-one')!;
      const [block] = (await client.getKeyInfo(volume, BUCKET, k.key)).blocks;
      const uuid = holder(block!, 2);
      // Byte 5 of replica 2's internal block is key byte c + 5.
      await adapter().corruptBlockReplica!({
        datanodeUuid: uuid,
        containerId: block!.containerId,
        localId: block!.localId,
        offsetInBlock: 5,
      });
      const stream = await client.openKey(volume, BUCKET, k.key, { verifyChecksum: true });
      try {
        expect((await stream.readFully(0, k.sizeBytes)).equals(expected(k))).toBe(true);
        expect(stream.badReplicas.map((r) => r.datanodeUuid)).toContain(uuid);
        expect(stream.stats.ecStripesRebuilt).toBeGreaterThan(0);
      } finally {
        stream.close();
      }
      const unverified = await client.readKey(volume, BUCKET, k.key, { verifyChecksum: false });
      expect(unverified[c + 5]).not.toBe(expected(k)[c + 5]);
      expect(unverified.subarray(0, c + 5).equals(expected(k).subarray(0, c + 5))).toBe(true);
    });
  }
}
