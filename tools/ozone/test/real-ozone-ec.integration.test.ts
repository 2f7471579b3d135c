// Erasure-coded keys on Apache Ozone's own MiniOzoneCluster: written by Ozone's Java client, their
// layout checked against what the OM records and what each datanode holds, then read by Java's
// client and by fastpath's side by side, healthy, around a damaged replica and with one, two and
// three datanodes of data replicas stopped; then the shared EC read contract on the same cluster.
import { readFileSync, statSync } from 'node:fs';
import { InvalidOptionError } from '@fastpath/core';
import { createOzoneClient, ErasureUnrecoverableError, type OzoneClient } from '@fastpath/ozone-fs-client';
import { describeEcReads } from '@fastpath/ozone-fs-client/testing/contract';
import {
  ecExpectedDataLocations,
  ecGroupReadable,
  erasureCodedKeySet,
  OzoneKeyReadError,
  OzoneKeyWriteError,
  SMALL_CELL_ALLOWED_REPLICATION_CONFIGS,
  startRealOzoneCluster,
  type ErasureCodedKeySet,
  type ErasureCodedTestKey,
  type JavaKeyBlock,
  type RealOzoneCluster,
  type WrittenKey,
} from '@fastpath/ozone-fixture';
import { REAL_CLUSTER_CAPABILITIES, realClusterAdapter } from './support/real-cluster-adapter.js';

// One MiniOzoneCluster at a time (the machine is small): the tests below run in order on one.
jest.setTimeout(600_000);

/** rs-3-2 needs five datanodes; the sixth is a spare that holds no replica of an rs-3-2-64k group. */
const DATANODES = 6;

interface Case {
  readonly set: ErasureCodedKeySet;
  readonly key: ErasureCodedTestKey;
}

describe("erasure-coded keys of Ozone's Java client on a real 6-datanode MiniOzoneCluster", () => {
  // Every key names rs-3-2-64k (cells of 64 KiB, 192 KiB stripes) and gets 128 KiB internal
  // blocks from the OM, so a block group holds 384 KiB: 0 B to several groups stay small.
  const perKey = erasureCodedKeySet({ replication: 'rs-3-2-64k' });
  // Ozone's default form, 1 MiB cells, from a bucket whose default it is (the key names none).
  const viaBucket = erasureCodedKeySet({ replication: 'rs-3-2-1024k', viaBucketDefault: true, seed: 2000 });
  const bucketKey = viaBucket.keys.find((k) => k.name === 'stripe-plus-one') as ErasureCodedTestKey;
  const cases: Case[] = [
    ...perKey.keys.map((key) => ({ set: perKey, key })),
    { set: viaBucket, key: bucketKey },
  ];
  const label = ({ set, key }: Case): string => `${set.bucket}/${key.name}`;

  let cluster: RealOzoneCluster;
  /** fastpath's client; a stopped datanode fails its replica at once (no retry sweeps). */
  let fastpath: OzoneClient;
  let written: WrittenKey[];
  /** Each key's block groups as the OM recorded them, after the write. */
  const layouts = new Map<Case, JavaKeyBlock[]>();
  /** Replica indexes whose bytes were damaged on disk, per key. */
  const corrupted = new Map<Case, number[]>();
  /** Datanodes stopped so far, in order. */
  const stopped: string[] = [];

  beforeAll(async () => {
    cluster = await startRealOzoneCluster({
      datanodes: DATANODES,
      allowedReplicationConfigs: SMALL_CELL_ALLOWED_REPLICATION_CONFIGS,
      // Ozone's reader retries a refused datanode 3 times (ozone.client.read.max.retries), each
      // after 1 s by default, before it fails over: about 2.5 s per lost replica per key read.
      // The retries stay; without the waits the degraded reads take a fraction of the time.
      configuration: { 'ozone.client.read.retry.interval': '0' },
    });
    written = await cluster.writeKeys([...perKey.specs, bucketKey.spec]);
    fastpath = createOzoneClient({ omAddress: cluster.omGrpcAddress, config: { readMaxRetries: 0 } });
  });

  afterAll(async () => {
    fastpath?.close();
    await cluster?.stop();
  });

  /**
   * Reads a key whole with fastpath's client: whether the bytes are the key's, the stripes it
   * rebuilt from parity, the datanodes whose replicas failed their checksums (or the error).
   */
  async function readWithFastpath(
    c: Case,
    verifyChecksum = true,
  ): Promise<{ same?: boolean; rebuilt: number; badDatanodes: string[]; error?: unknown }> {
    const stream = await fastpath.openKey(c.set.volume, c.set.bucket, c.key.name, { verifyChecksum });
    try {
      const got = await stream.readFully(0, c.key.sizeBytes);
      return {
        same: got.equals(c.key.expectedBytes()),
        rebuilt: stream.stats.ecStripesRebuilt,
        badDatanodes: stream.badReplicas.map((r) => r.datanodeUuid),
      };
    } catch (error) {
      return { error, rebuilt: stream.stats.ecStripesRebuilt, badDatanodes: [] };
    } finally {
      stream.close();
    }
  }

  it('writes every key erasure coded with its replication, the bytes of the key pattern', () => {
    expect(written.map((w) => `${w.bucket}/${w.key}`)).toEqual(cases.map(label));
    for (const [i, { set, key }] of cases.entries()) {
      const w = written[i] as WrittenKey;
      expect(w.replication).toBe(set.ec.text);
      expect(w.size).toBe(key.sizeBytes);
      expect(w.sha256).toBe(key.sha256);
      // An EC key's chunks are its cells.
      expect(w.chunkSizeBytes).toBe(set.ec.cellBytes);
      expect(w.blocks.map((b) => b.length)).toEqual(key.groupLengths);
    }
    // Three groups of 384 KiB, 384 KiB and 256 KiB + 7 B.
    expect(perKey.keys.find((k) => k.name === 'several-groups')?.groupLengths).toEqual([
      393_216, 393_216, 262_151,
    ]);
  });

  it('a bucket whose default is EC gives it to a key that names none; another default for it is refused', async () => {
    const lookup = await cluster.lookupKey(viaBucket.volume, viaBucket.bucket, bucketKey.name);
    expect(lookup).toMatchObject({ found: true, replication: 'rs-3-2-1024k', dataSize: bucketKey.sizeBytes });
    expect(bucketKey.spec.replication).toBeUndefined();
    await expect(
      cluster.writeKeys([
        {
          volume: viaBucket.volume,
          bucket: viaBucket.bucket,
          key: 'other-default',
          size: 1,
          bucketReplication: 'rs-3-2-64k',
        },
      ]),
    ).rejects.toThrow(OzoneKeyWriteError);
    expect(await cluster.lookupKey(viaBucket.volume, viaBucket.bucket, 'other-default')).toEqual({
      found: false,
    });
  });

  it('refuses, before anything is sent, an EC replication the cluster cannot write', async () => {
    const fine = { volume: perKey.volume, bucket: perKey.bucket, key: 'not-written', size: 1 };
    for (const [replication, reason] of [
      ['rs-6-3-64k', /9 internal blocks.*the cluster has 6/],
      ['rs-3-2-3k', /EC\/3-2-3k.*allowedReplicationConfigs/],
      ['rs-3-2', /EC replication/],
      ['lrc-3-2-64k', /codec lrc/],
    ] as const) {
      const error = await cluster
        .writeKeys([fine, { ...fine, key: 'bad', replication: replication as never }])
        .catch((err: unknown) => err);
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect((error as InvalidOptionError).option).toBe('keys[1].replication');
      expect((error as InvalidOptionError).message).toMatch(reason);
    }
    expect(await cluster.lookupKey(fine.volume, fine.bucket, fine.key)).toEqual({ found: false });
  });

  it('the OM records each block group (length, BCSID 0, replica indexes 1..5 on five datanodes), each holding its internal block at the layout length', async () => {
    for (const c of cases) {
      const { set, key } = c;
      const lookup = await cluster.lookupKey(set.volume, set.bucket, key.name);
      if (!lookup.found) throw new Error(`${label(c)} not found`);
      expect(lookup.replication).toBe(set.ec.text);
      expect(lookup.ec).toEqual(set.ec);
      expect(lookup.dataSize).toBe(key.sizeBytes);
      expect(lookup.blocks.map((b) => b.lengthBytes)).toEqual(key.groupLengths);
      for (const [g, block] of lookup.blocks.entries()) {
        const at = `${label(c)} group ${g}`;
        // EC PutBlocks do not go through Ratis: no log index to record.
        expect([at, block.blockCommitSequenceId]).toEqual([at, 0n]);
        const indexes = block.replicas.map((r) => r.replicaIndex).sort((a, b) => a - b);
        expect([at, indexes]).toEqual([at, [1, 2, 3, 4, 5]]);
        const holders = new Set(block.replicas.map((r) => r.datanodeUuid));
        expect(holders.size).toBe(5);
        for (const uuid of holders) expect(cluster.datanodes.some((d) => d.uuid === uuid)).toBe(true);
        // Only the pipeline's datanodes hold the block, each the internal block of its index.
        expect(block.stored).toHaveLength(5);
        for (const replica of block.replicas) {
          const stored = block.stored.find((s) => s.datanodeUuid === replica.datanodeUuid);
          const length = key.internalBlockLengths[g]?.[replica.replicaIndex - 1];
          expect([at, replica.replicaIndex, stored?.replicaIndex, stored?.lengthBytes]).toEqual([
            at,
            replica.replicaIndex,
            replica.replicaIndex,
            length,
          ]);
          // A replica that got no cell (a 1-byte key's indexes 2 and 3) has a PutBlock and no file.
          if (length === 0) expect(stored?.blockFile).toBeNull();
          else expect(statSync(stored?.blockFile as string).size).toBe(length);
        }
      }
      layouts.set(c, lookup.blocks);
    }
    // ecPipelineMinimum 1: every rs-3-2-64k group on the same five datanodes, index for index.
    const placements = new Set(
      cases
        .filter((c) => c.set === perKey)
        .flatMap((c) => layouts.get(c) ?? [])
        .map((b) => JSON.stringify([...b.replicas].sort((x, y) => x.replicaIndex - y.replicaIndex))),
    );
    expect(placements.size).toBe(1);
  });

  /**
   * Reads a key with Java: its bytes' SHA-256 (or the error), and how many of its block groups the
   * client read by reconstruction and how many of those failed (its own counters, before and after).
   */
  async function readCounting(
    c: Case,
  ): Promise<{ sha256?: string; error?: unknown; reconstructions: number; failures: number }> {
    const before = await cluster.javaClientCounters();
    const outcome = await cluster.readKeyWithJava(c.set.volume, c.set.bucket, c.key.name).then(
      (read) => {
        expect([label(c), read.bytesRead]).toEqual([label(c), c.key.sizeBytes]);
        return { sha256: read.sha256 };
      },
      (error: unknown) => ({ error }),
    );
    const after = await cluster.javaClientCounters();
    return {
      ...outcome,
      reconstructions: after.ecReconstructionReads - before.ecReconstructionReads,
      failures: after.ecReconstructionFailures - before.ecReconstructionFailures,
    };
  }

  it("Ozone's Java client reads every key back, byte-identical, from the data replicas alone", async () => {
    for (const c of cases) {
      const read = await readCounting(c);
      expect([label(c), read.sha256, read.reconstructions]).toEqual([label(c), c.key.sha256, 0]);
    }
  });

  it('fastpath reads every key Java wrote, byte-identical, verified and not, from the data replicas alone', async () => {
    for (const c of cases)
      for (const verify of [true, false]) {
        const read = await readWithFastpath(c, verify);
        expect([label(c), verify, read.same, read.rebuilt]).toEqual([label(c), verify, true, 0]);
      }
  });

  it('corruptBlockReplica flips a byte of one internal block on disk; Java and fastpath read around it', async () => {
    const c = cases.find((x) => x.set === perKey && x.key.name === 'stripe-plus-one') as Case;
    const group = (layouts.get(c) as JavaKeyBlock[])[0] as JavaKeyBlock;
    const index1 = group.replicas.find((r) => r.replicaIndex === 1)!;
    const file = group.stored.find((s) => s.replicaIndex === 1)!.blockFile as string;
    // Offset 64 KiB of internal block 1 is its second cell: key byte 192 Ki, the second stripe's first.
    const cell = perKey.ec.cellBytes;
    const original = c.key.expectedBytes(cell * perKey.ec.dataUnits, 1)[0] as number;
    expect(readFileSync(file)[cell]).toBe(original);
    await cluster.corruptBlockReplica({
      datanodeUuid: index1.datanodeUuid,
      localId: group.localId,
      offsetInBlock: cell,
    });
    expect(readFileSync(file)[cell]).toBe(original ^ 0xff);
    corrupted.set(c, [1]);
    // The replica's checksum fails; Ozone's reader fails over to reconstructing from the others.
    const read = await readCounting(c);
    expect(read).toEqual({ sha256: c.key.sha256, reconstructions: 1, failures: 0 });
    // fastpath finds the damage by the cell's checksum and rebuilds the cell from parity.
    const mine = await readWithFastpath(c);
    expect(mine).toMatchObject({ same: true, badDatanodes: [index1.datanodeUuid] });
    expect(mine.rebuilt).toBeGreaterThan(0);
    // Unverified, fastpath returns what replica 1 holds, as any reader without checksums would.
    const unverified = await fastpath.readKey(c.set.volume, c.set.bucket, c.key.name, {
      verifyChecksum: false,
    });
    expect(unverified[cell * perKey.ec.dataUnits]).toBe(original ^ 0xff);
  });

  /** The datanode holding replica `index` of every rs-3-2-64k group. */
  const holderOf = (index: number): string => {
    const group = layouts.get(cases.find((c) => c.key.name === 'several-groups') as Case)?.[0];
    return group?.replicas.find((r) => r.replicaIndex === index)?.datanodeUuid as string;
  };

  /**
   * Reads every key with Java. A key must read, byte-identical, when each of its groups keeps
   * enough replicas (its replicas on stopped datanodes, and damaged ones, counted lost), and then
   * by reconstruction exactly in the groups that lost a data replica they need; else the read must
   * fail in the first group that cannot be read, after the client started its reconstruction
   * reader there. Returns the keys that failed.
   */
  async function readAllWithStopped(): Promise<string[]> {
    const failed: string[] = [];
    for (const c of cases) {
      const groups = (layouts.get(c) as JavaKeyBlock[]).map((g) => {
        const lost = [
          ...g.replicas.filter((r) => stopped.includes(r.datanodeUuid)).map((r) => r.replicaIndex),
          ...(corrupted.get(c) ?? []),
        ];
        const needed = ecExpectedDataLocations(g.lengthBytes, c.set.ec);
        return {
          readable: ecGroupReadable(g.lengthBytes, c.set.ec, lost),
          lostNeededData: lost.some((index) => index <= needed),
        };
      });
      const read = await readCounting(c);
      const mine = await readWithFastpath(c);
      if (groups.every((g) => g.readable)) {
        // fastpath reads what Java reads, rebuilding exactly when a group lost a data replica it needs.
        expect([label(c), mine.same, mine.rebuilt > 0]).toEqual([
          label(c),
          true,
          groups.some((g) => g.lostNeededData),
        ]);
        expect([label(c), read.sha256, read.reconstructions, read.failures]).toEqual([
          label(c),
          c.key.sha256,
          groups.filter((g) => g.lostNeededData).length,
          0,
        ]);
      } else {
        expect([label(c), read.error]).toEqual([label(c), expect.any(OzoneKeyReadError)]);
        expect([label(c), mine.error]).toEqual([label(c), expect.any(ErasureUnrecoverableError)]);
        expect((read.error as Error).message).toMatch(
          /InsufficientLocationsException: There are insufficient datanodes to read the EC block/,
        );
        const upToFailing = groups.slice(0, groups.findIndex((g) => !g.readable) + 1);
        expect([label(c), read.reconstructions]).toEqual([
          label(c),
          upToFailing.filter((g) => g.lostNeededData).length,
        ]);
        // Ozone's proxy counts a failed reconstruction only when it fails in a read: one that fails
        // in the seek back to where the data replicas' read stopped (a lost index past the group's
        // first read) goes uncounted.
        expect([0, 1]).toContain(read.failures);
        failed.push(label(c));
      }
    }
    return failed;
  }

  it('with the datanode of data replica 1 stopped, Java and fastpath read every key (reconstructing what it held)', async () => {
    stopped.push(holderOf(1));
    await cluster.stopDatanode(holderOf(1));
    expect(await readAllWithStopped()).toEqual([]);
  });

  it('with the datanode of replica 2 stopped as well, Java and fastpath still read every key from the three left', async () => {
    stopped.push(holderOf(2));
    await cluster.stopDatanode(holderOf(2));
    expect(await readAllWithStopped()).toEqual([]);
  });

  it('with replica 3 gone too only the parities are left: keys of one or two cells per group still read, every other read fails (fastpath: ERR_OZONE_EC_UNRECOVERABLE)', async () => {
    stopped.push(holderOf(3));
    await cluster.stopDatanode(holderOf(3));
    const failed = await readAllWithStopped();
    // Three data cells cannot come back from two parities; one or two can (the cells past a short
    // group's end count as zeros).
    expect(failed).toEqual(
      expect.arrayContaining([
        'rs-3-2-64k/stripe-minus-one',
        'rs-3-2-64k/stripe',
        'rs-3-2-64k/several-groups',
      ]),
    );
    expect(failed).not.toContain('rs-3-2-64k/one-byte');
    expect(failed).not.toContain('rs-3-2-64k/cell-plus-one');
  });

  it('restarted, the three datanodes serve again and both clients read every key', async () => {
    for (const uuid of stopped.splice(0)) await cluster.restartDatanode(uuid);
    expect(await readAllWithStopped()).toEqual([]);
  });

  // The contract's EC half, fastpath reading rs-3-2-1024k keys Java writes here (four groups of
  // three 1 MiB internal blocks), on the datanodes the rs-3-2-1024k key above uses.
  describe('the EC read contract', () => {
    let inspector: OzoneClient;
    beforeAll(() => {
      inspector = createOzoneClient({ omAddress: cluster.omGrpcAddress });
    });
    afterAll(() => inspector?.close());
    describeEcReads(() => realClusterAdapter(cluster, inspector), {
      ...REAL_CLUSTER_CAPABILITIES,
      ec: { replication: 'rs-3-2-1024k', blockGroupBytes: 3 * 1024 * 1024 },
    });
  });
});
