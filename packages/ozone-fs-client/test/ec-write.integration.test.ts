// The client writes erasure-coded keys as Ozone's Java EC writer does, on the embedded cluster:
// stripes of cells with their parity, each cell one WriteChunk on its replica's standalone port,
// PutBlock to every replica, the partial last stripe, block groups rolled over, CommitKey with
// each group's data length; a failed stripe written again into a new group away from what
// failed; and the replication taken from the key, the bucket or the client's settings. Each key
// is checked on the datanodes directly (test/support/ec-layout.ts), as the striper's keys are, and
// read back through the client's EC reader; last, the EC read contract runs on keys written here.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { InvalidOptionError } from '@fastpath/core';
import {
  createOzoneClient,
  ErasureCodedWriteError,
  ErasureCodingConfigError,
  OmStatusError,
  OzoneHsyncUnsupportedError,
  type CreateKeyOptions,
  type OzoneClient,
  type ReplicationName,
} from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import {
  contractKeyBytes,
  describeEcReads,
  MINI_CLUSTER_CAPABILITIES,
  miniClusterAdapter,
  type OzoneClusterAdapter,
} from '@fastpath/ozone-fs-client/testing/contract';
import { parseEcReplicationConfig, type EcReplicationConfig } from '../src/internal/ec/ec-stripe-layout.js';
import { directOmCalls } from '../src/testing/mini-ec-striper.js';
import { dn, hdds, om as omProto, toBigInt, toNumber, type hadoop } from '../src/internal/proto/wire.js';
import { DEFAULT_REPLICATION_ALLOWED_CONFIGS } from '../src/testing/mini-om-ec.js';
import { expectEcLayout, readReplica } from './support/ec-layout.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const RS_3_2 = parseEcReplicationConfig('rs-3-2-1024k');
const RS_3_2_SMALL = parseEcReplicationConfig('rs-3-2-4k');
const RS_6_3_SMALL = parseEcReplicationConfig('rs-6-3-4k');
/** Small cells keep the keys small: both sides' allowed configs are widened for them, as a test cluster may be. */
const ALLOWED = '(RATIS/(ONE|THREE))|(EC/(3-2|6-3)-(4|1024)k)';

let cluster: MiniOzoneCluster;
let client: OzoneClient;
let om: ReturnType<typeof directOmCalls>;
const clients: OzoneClient[] = [];

function newClient(properties: Record<string, string> = {}): OzoneClient {
  const c = createOzoneClient({
    omAddress: cluster.omAddress,
    properties: { 'ozone.replication.allowed-configs': ALLOWED, ...properties },
  });
  clients.push(c);
  return c;
}

beforeAll(async () => {
  cluster = await startMiniOzoneCluster({ datanodes: 9 });
  cluster.om.replicationAllowedConfigs = new RegExp(`^(?:${ALLOWED})$`);
  client = newClient();
  om = directOmCalls(cluster.omAddress);
  await client.createVolume('vol');
  await client.createBucket('vol', 'ecw');
});

afterAll(async () => {
  om?.close();
  for (const c of clients) c.close();
  await cluster?.close();
});

afterEach(() => cluster.clearFaults());

async function lookup(key: string, bucket = 'ecw'): Promise<hadoop.ozone.IKeyInfo> {
  const r = await om.submit('LookupKey', {
    lookupKeyRequest: { keyArgs: { volumeName: 'vol', bucketName: bucket, keyName: key } },
  });
  return r.lookupKeyResponse!.keyInfo!;
}

/** Writes `data` as a key with `options` and checks its layout; returns its groups' lengths. */
async function writeAndCheck(
  key: string,
  data: Uint8Array,
  config: EcReplicationConfig,
  options: CreateKeyOptions = {},
  c: OzoneClient = client,
): Promise<number[]> {
  await c.writeKey('vol', 'ecw', key, data, options);
  const lengths = await expectEcLayout(cluster, await lookup(key), data, config, { stripeChecksums: true });
  await expectReadBack(key, data, c);
  return lengths;
}

/** The client's EC reader gives the key's bytes back. */
async function expectReadBack(
  key: string,
  data: Uint8Array,
  c: OzoneClient = client,
  bucket = 'ecw',
): Promise<void> {
  expect((await c.readKey('vol', bucket, key)).equals(Buffer.from(data))).toBe(true);
}

/** Forgets the OM's last exchanges, so that those after this are the test's own. */
function forgetExchanges(): void {
  cluster.om.exchanges.length = 0;
}

/** The requests of `command` the OM received since {@link forgetExchanges}. */
function omRequests(command: keyof typeof omProto.Type): hadoop.ozone.OMRequest[] {
  return cluster.om.exchanges
    .map((e) => omProto.OMRequest.decode(e.request))
    .filter((r) => r.cmdType === omProto.Type[command]);
}

const count = (command: string) => cluster.om.requests.get(command) ?? 0;

/** The first block group CreateKey answered since {@link forgetExchanges}. */
function createdGroup(): hadoop.ozone.IKeyLocation {
  const created = cluster.om.exchanges
    .map((e) => omProto.OMResponse.decode(e.response))
    .find((r) => r.createKeyResponse);
  return created!.createKeyResponse!.keyInfo!.keyLocationList![0]!.keyLocations![0]!;
}

describe('rs-3-2-1024k, every size around a cell and a stripe', () => {
  const c = MiB;
  const S = 3 * c;
  it.each([
    ['one byte', 1],
    ['one cell minus one', c - 1],
    ['one cell', c],
    ['one cell plus one', c + 1],
    ['one stripe minus one', S - 1],
    ['one stripe', S],
    ['one stripe plus one', S + 1],
    ['two stripes and a partial one', 7_000_000],
  ])('%s', async (_, size) => {
    const lengths = await writeAndCheck(`rs32-${size}`, contractKeyBytes(size, size), RS_3_2, {
      replication: 'rs-3-2-1024k',
    });
    expect(lengths).toEqual([size]);
  });

  it('an empty key: committed with no block group, as Java commits it', async () => {
    await client.writeKey('vol', 'ecw', 'rs32-empty', new Uint8Array(0), { replication: 'rs-3-2-1024k' });
    const info = await lookup('rs32-empty');
    expect(info.type).toBe(hdds.ReplicationType.EC);
    expect(toNumber(info.dataSize)).toBe(0);
    expect(info.keyLocationList![0]!.keyLocations ?? []).toEqual([]);
  });

  it('writes in pieces of any size give the same layout, each stripe sent as it fills', async () => {
    const data = contractKeyBytes(2 * S + 12_345, 77);
    const out = await client.createKey('vol', 'ecw', 'rs32-pieces', { replication: 'rs-3-2-1024k' });
    cluster.resetCounters();
    for (let at = 0; at < data.length; at += 100_003) {
      await out.write(data.subarray(at, at + 100_003));
      // Whole stripes are on the datanodes once the write that filled them resolves.
      const stripes = Math.floor(Math.min(at + 100_003, data.length) / S);
      expect(cluster.datanodes.reduce((n, d) => n + (d.counters.byCommand.PutBlock ?? 0), 0)).toBe(
        5 * stripes,
      );
    }
    expect(out.bytesWritten).toBe(data.length);
    await out.close();
    expect(
      await expectEcLayout(cluster, await lookup('rs32-pieces'), data, RS_3_2, { stripeChecksums: true }),
    ).toEqual([data.length]);
  });

  it('every command names its replica index; cells go in parallel, PutBlock to every replica', async () => {
    cluster.resetCounters();
    for (const d of cluster.datanodes) d.received.length = 0;
    await client.writeKey('vol', 'ecw', 'rs32-wire', contractKeyBytes(5000, 3), {
      replication: 'rs-3-2-1024k',
    });
    const loc = (await lookup('rs32-wire')).keyLocationList![0]!.keyLocations![0]!;
    const members = loc.pipeline!.members!.map((m) => m.uuid!);
    members.forEach((uuid, i) => {
      const requests = cluster
        .datanode(uuid)
        .received.map((raw) => dn.ContainerCommandRequestProto.decode(raw))
        .filter((r) => r.cmdType === dn.Type.WriteChunk || r.cmdType === dn.Type.PutBlock);
      // 5000 bytes: a cell on replica 1, parity on 4 and 5, an empty PutBlock on 2 and 3.
      expect(requests.map((r) => dn.Type[r.cmdType])).toEqual(
        i === 0 || i >= 3 ? ['WriteChunk', 'PutBlock'] : ['PutBlock'],
      );
      for (const r of requests) {
        const id = r.writeChunk?.blockID ?? r.putBlock!.blockData.blockID;
        expect(id.replicaIndex).toBe(i + 1);
        expect(toBigInt(id.containerID)).toBe(toBigInt(loc.blockID.containerBlockID.containerID));
        expect(r.datanodeUuid).toBe(uuid);
      }
      expect(requests.find((r) => r.putBlock)?.putBlock?.eof).toBe(true);
    });
    // EC writes take the standalone port: this client wrote through no pipeline's Raft group.
    expect(client.writePipelines).toEqual([]);
  });
});

describe('small cells: several block groups, rs-6-3 and rs-3-2', () => {
  // An internal block of two 4 KiB cells: rs-6-3 groups of 48 KiB of key bytes. No chunk size:
  // an EC key's chunks are its cells, so the 8 KiB block is held against the 4 KiB cell (not the
  // client's 4 MiB chunk size, which refused it before).
  const groupOptions: CreateKeyOptions = {
    replication: 'rs-6-3-4k',
    blockSizeBytes: 8 * KiB,
    checksumType: 'CRC32C',
    bytesPerChecksum: 8 * KiB,
  };
  const group = 2 * 6 * 4 * KiB;

  it('rs-6-3-4k: three full groups and a partial stripe in a fourth, with the client’s checksums', async () => {
    const data = contractKeyBytes(3 * group + 5000, 63);
    const before = count('AllocateBlock');
    expect(await writeAndCheck('rs63-groups', data, RS_6_3_SMALL, groupOptions)).toEqual([
      group,
      group,
      group,
      5000,
    ]);
    expect(count('AllocateBlock') - before).toBe(3);
    const loc = (await lookup('rs63-groups')).keyLocationList![0]!.keyLocations![0]!;
    const replica1 = await readReplica(
      cluster,
      loc.pipeline!.members![0]!.uuid!,
      toBigInt(loc.blockID.containerBlockID.containerID),
      toBigInt(loc.blockID.containerBlockID.localID),
      1,
    );
    expect(replica1.blockData.chunks![0]!.checksumData).toMatchObject({
      type: dn.ChecksumType.CRC32C,
      bytesPerChecksum: 8 * KiB,
    });
  });

  it('rs-6-3-4k: a key that ends at a group’s end commits exactly its groups', async () => {
    const data = contractKeyBytes(2 * group, 64);
    expect(await writeAndCheck('rs63-two-groups', data, RS_6_3_SMALL, groupOptions)).toEqual([group, group]);
  });

  it('rs-3-2-4k: sizes around a cell and a stripe', async () => {
    for (const size of [1, 4095, 4096, 4097, 12_287, 12_288, 12_289, 30_000])
      expect(
        await writeAndCheck(`rs32s-${size}`, contractKeyBytes(size, size), RS_3_2_SMALL, {
          replication: 'rs-3-2-4k',
        }),
      ).toEqual([size]);
  });
});

describe('where the replication comes from', () => {
  it('a bucket’s default: CreateKey names none, the stream writes what the OM answered', async () => {
    await client.createBucket('vol', 'ecdefault', { defaultReplication: 'rs-3-2-4k' });
    expect((await client.getBucket('vol', 'ecdefault')).defaultReplication).toBe('rs-3-2-4k');
    forgetExchanges();
    const data = contractKeyBytes(20_000, 21);
    await client.writeKey('vol', 'ecdefault', 'k', data);
    const [created] = omRequests('CreateKey');
    expect(created!.createKeyRequest!.keyArgs.type).toBe(hdds.ReplicationType.NONE);
    expect(created!.createKeyRequest!.keyArgs.ecReplicationConfig).toBeNull();
    const [committed] = omRequests('CommitKey');
    expect(committed!.commitKeyRequest!.keyArgs.type).toBe(hdds.ReplicationType.EC);
    expect(committed!.commitKeyRequest!.keyArgs.ecReplicationConfig).toMatchObject({
      data: 3,
      parity: 2,
      ecChunkSize: 4096,
    });
    await expectReadBack('k', data, client, 'ecdefault');
    await expectEcLayout(cluster, await lookup('k', 'ecdefault'), data, RS_3_2_SMALL, {
      stripeChecksums: true,
    });
  });

  it('the client’s ozone.replication, read as ozone.replication.type says, unless the bucket’s default is EC', async () => {
    const configured = newClient({ 'ozone.replication.type': 'EC', 'ozone.replication': 'rs-3-2-4k' });
    await client.createBucket('vol', 'ec63', { defaultReplication: 'rs-6-3-4k' });
    await client.createBucket('vol', 'ratis1', { defaultReplication: 'ONE' });
    const data = contractKeyBytes(30_000, 5);
    await configured.writeKey('vol', 'ecw', 'from-config', data);
    await expectEcLayout(cluster, await lookup('from-config'), data, RS_3_2_SMALL);
    // As Ozone's file systems resolve it: an EC bucket keeps its own, a RATIS one takes the client's.
    await configured.writeKey('vol', 'ec63', 'k', data);
    await expectEcLayout(cluster, await lookup('k', 'ec63'), data, RS_6_3_SMALL);
    await configured.writeKey('vol', 'ratis1', 'k', data);
    await expectEcLayout(cluster, await lookup('k', 'ratis1'), data, RS_3_2_SMALL);
    // The key's own wins over both.
    await configured.writeKey('vol', 'ecw', 'own-three', data, { replication: 'THREE' });
    expect((await lookup('own-three')).type).toBe(hdds.ReplicationType.RATIS);
    expect(await configured.readKey('vol', 'ecw', 'own-three')).toEqual(Buffer.from(data));
    // ozone.replication.type alone changes nothing: the OM decides.
    const typeOnly = newClient({ 'ozone.replication.type': 'EC' });
    await typeOnly.writeKey('vol', 'ecw', 'type-only', data);
    expect((await lookup('type-only')).type).toBe(hdds.ReplicationType.RATIS);
  });

  it('createFile takes the key’s replication too', async () => {
    const data = contractKeyBytes(9000, 8);
    const out = await client.createFile('vol', 'ecw', 'dir/file', {
      replication: 'rs-6-3-4k',
      recursive: true,
    });
    await out.write(data);
    await out.close();
    await expectEcLayout(cluster, await lookup('dir/file'), data, RS_6_3_SMALL, { stripeChecksums: true });
  });
});

describe('what is refused before anything is sent', () => {
  async function refusedBeforeCreate(
    c: OzoneClient,
    key: string,
    replication: string,
    type: abstract new (...a: never[]) => Error,
  ) {
    const creates = count('CreateKey');
    const err = await c
      .writeKey('vol', 'ecw', key, new Uint8Array(10), { replication } as CreateKeyOptions)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(type);
    expect(count('CreateKey')).toBe(creates);
    await expect(c.getKeyInfo('vol', 'ecw', key)).rejects.toMatchObject({ status: 'KEY_NOT_FOUND' });
    return err as Error;
  }

  it('an unknown codec, a malformed config, a zero parity count: ERR_OZONE_EC_CONFIG', async () => {
    for (const replication of ['lrc-3-2-1024k', 'rs-3-2', 'rs-3-0-1024k', 'xor-2-2-1024k'])
      expect(await refusedBeforeCreate(client, 'bad', replication, ErasureCodingConfigError)).toMatchObject({
        code: 'ERR_OZONE_EC_CONFIG',
      });
  });

  it('xor-2-1-1024k with Ozone’s default allowed configs: refused by the client, as Ozone’s client refuses it', async () => {
    const byDefault = createOzoneClient({ omAddress: cluster.omAddress });
    clients.push(byDefault);
    const err = await refusedBeforeCreate(byDefault, 'xor', 'xor-2-1-1024k', ErasureCodingConfigError);
    expect(err.message).toContain('Invalid replication config EC/2-1-1024k');
    // And so is a bucket default.
    const buckets = count('CreateBucket');
    await expect(
      byDefault.createBucket('vol', 'xorb', { defaultReplication: 'xor-2-1-1024k' }),
    ).rejects.toBeInstanceOf(ErasureCodingConfigError);
    expect(count('CreateBucket')).toBe(buckets);
  });

  it('xor-2-1-1024k allowed by the client but not by an OM with the default allowed configs: INVALID_REQUEST, no key', async () => {
    const permissive = newClient({ 'ozone.replication.allowed-configs': '' });
    const widened = cluster.om.replicationAllowedConfigs;
    cluster.om.replicationAllowedConfigs = DEFAULT_REPLICATION_ALLOWED_CONFIGS;
    const err = await permissive
      .writeKey('vol', 'ecw', 'xor-om', new Uint8Array(10), { replication: 'xor-2-1-1024k' })
      .catch((e: unknown) => e)
      .finally(() => {
        cluster.om.replicationAllowedConfigs = widened;
      });
    expect(err).toBeInstanceOf(OmStatusError);
    expect((err as OmStatusError).status).toBe('INVALID_REQUEST');
    await expect(client.getKeyInfo('vol', 'ecw', 'xor-om')).rejects.toMatchObject({
      status: 'KEY_NOT_FOUND',
    });
  });

  it('a client setting that does not parse, or is not allowed: ERR_INVALID_OPTION naming ozone.replication', () => {
    for (const properties of [
      { 'ozone.replication.type': 'EC', 'ozone.replication': 'THREE' },
      { 'ozone.replication': 'rs-3-2-1024k' },
      {
        'ozone.replication.type': 'EC',
        'ozone.replication': 'xor-2-1-1024k',
        'ozone.replication.allowed-configs': ALLOWED,
      },
    ]) {
      let thrown: unknown;
      try {
        createOzoneClient({ omAddress: cluster.omAddress, properties }).close();
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(InvalidOptionError);
      expect((thrown as Error).message).toContain('ozone.replication');
    }
  });
});

describe('the stream of an EC key', () => {
  it('flush() does nothing, hsync() is refused with hsync on, and neither capability is offered', async () => {
    const syncing = newClient({
      'ozone.client.hbase.enhancements.allowed': 'true',
      'ozone.fs.hsync.enabled': 'true',
    });
    const out = await syncing.createKey('vol', 'ecw', 'no-hsync', { replication: 'rs-3-2-4k' });
    const data = contractKeyBytes(5000, 1);
    await out.write(data);
    cluster.resetCounters();
    await out.flush();
    expect(cluster.datanodes.every((d) => d.counters.requests === 0)).toBe(true);
    await expect(out.hsync()).rejects.toBeInstanceOf(OzoneHsyncUnsupportedError);
    expect(out.hasCapability('hsync')).toBe(false);
    await out.close();
    await expectEcLayout(cluster, await lookup('no-hsync'), data, RS_3_2_SMALL);
  });
});

describe('datanode failures', () => {
  const stripe = 3 * 4 * KiB;

  /** The datanodes of the group the stream is writing: those that took a PutBlock since the counters were reset. */
  const busy = () =>
    cluster.datanodes.filter((d) => (d.counters.byCommand.PutBlock ?? 0) > 0).map((d) => d.uuid);

  it('a failed PutBlock in the first stripe: that group is not committed; its node and pipeline are excluded', async () => {
    const data = contractKeyBytes(2 * stripe + 7, 42);
    forgetExchanges();
    const out = await client.createKey('vol', 'ecw', 'putblock-failed', { replication: 'rs-3-2-4k' });
    const firstGroup = createdGroup();
    const victim = firstGroup.pipeline!.members![2]!.uuid!;
    cluster.injectFault(victim, { command: 'PutBlock', result: 'IO_EXCEPTION', times: 1 });
    await out.write(data);
    await out.close();
    const info = await lookup('putblock-failed');
    const locations = info.keyLocationList![0]!.keyLocations!;
    expect(locations.map((l) => toBigInt(l.blockID.containerBlockID.localID))).not.toContain(
      toBigInt(firstGroup.blockID.containerBlockID.localID),
    );
    expect(await expectEcLayout(cluster, info, data, RS_3_2_SMALL, { stripeChecksums: true })).toEqual([
      data.length,
    ]);
    const [allocated] = omRequests('AllocateBlock');
    expect(allocated!.allocateBlockRequest!.excludeList).toMatchObject({
      datanodes: [victim],
      pipelineIds: [expect.objectContaining({ id: firstGroup.pipeline!.id.id })],
    });
  });

  it('a closed container (CLOSED_CONTAINER_IO) excludes the pipeline, not the datanode', async () => {
    const data = contractKeyBytes(stripe + 100, 43);
    forgetExchanges();
    const out = await client.createKey('vol', 'ecw', 'closed-container', { replication: 'rs-3-2-4k' });
    await out.write(data.subarray(0, stripe));
    // Replica 1: the short last stripe has a cell there.
    const victim = createdGroup().pipeline!.members![0]!.uuid!;
    cluster.injectFault(victim, { command: 'WriteChunk', result: 'CLOSED_CONTAINER_IO', times: 1 });
    await out.write(data.subarray(stripe));
    await out.close();
    const info = await lookup('closed-container');
    expect(await expectEcLayout(cluster, info, data, RS_3_2_SMALL)).toEqual([stripe, 100]);
    await expectReadBack('closed-container', data);
    const [allocated] = omRequests('AllocateBlock');
    expect(allocated!.allocateBlockRequest!.excludeList!.datanodes).toEqual([]);
    expect(allocated!.allocateBlockRequest!.excludeList!.pipelineIds).toHaveLength(1);
  });

  it('every replica failing: ErasureCodedWriteError after ozone.client.max.ec.stripe.write.retries (10) new groups, nothing committed', async () => {
    for (const d of cluster.datanodes)
      cluster.injectFault(d.uuid, { command: 'WriteChunk', result: 'CLOSED_CONTAINER_IO' });
    const allocations = count('AllocateBlock');
    const commits = count('CommitKey');
    const out = await client.createKey('vol', 'ecw', 'all-failing', { replication: 'rs-3-2-4k' });
    const err = await out.write(contractKeyBytes(stripe, 44)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ErasureCodedWriteError);
    const e = err as ErasureCodedWriteError;
    expect(e).toMatchObject({
      code: 'ERR_OZONE_EC_WRITE_FAILED',
      retriable: true,
      attempts: 11,
      key: 'all-failing',
    });
    expect(new Set(e.failures.map((f) => f.attempt)).size).toBe(11);
    expect(e.failures.every((f) => f.command === 'WriteChunk')).toBe(true);
    expect(count('AllocateBlock') - allocations).toBe(10);
    await expect(out.close()).rejects.toBe(err);
    expect(count('CommitKey')).toBe(commits);
    await expect(client.getKeyInfo('vol', 'ecw', 'all-failing')).rejects.toMatchObject({
      status: 'KEY_NOT_FOUND',
    });
  });

  it("every datanode failing with an I/O error: each failed node is excluded until none are left, then ErasureCodedWriteError with the replica failures and the OM's KEY_ALLOCATION_ERROR, nothing committed", async () => {
    for (const d of cluster.datanodes)
      cluster.injectFault(d.uuid, { command: 'WriteChunk', result: 'IO_EXCEPTION' });
    const commits = count('CommitKey');
    const limited = newClient({ 'ozone.client.max.ec.stripe.write.retries': '3' });
    const out = await limited.createKey('vol', 'ecw', 'all-down', { replication: 'rs-3-2-4k' });
    // 100 bytes: one data cell and two parity cells fail, three datanodes excluded per group.
    await out.write(contractKeyBytes(100, 45));
    const err = await out.close().catch((e: unknown) => e);
    // Nine datanodes: the first group's three failing nodes excluded, then the second's; six
    // excluded leave three, too few for a group.
    expect(err).toBeInstanceOf(ErasureCodedWriteError);
    const e = err as ErasureCodedWriteError;
    expect(e).toMatchObject({ code: 'ERR_OZONE_EC_WRITE_FAILED', attempts: 2, key: 'all-down' });
    expect(e.failures.length).toBe(6);
    expect(e.failures.every((f) => f.command === 'WriteChunk')).toBe(true);
    expect(e.allocationError).toBeInstanceOf(OmStatusError);
    expect((e.allocationError as OmStatusError).status).toBe('KEY_ALLOCATION_ERROR');
    expect(e.cause).toBe(e.allocationError);
    expect(e.message).toContain('no other block group could be allocated');
    expect(count('CommitKey')).toBe(commits);
    await expect(client.getKeyInfo('vol', 'ecw', 'all-down')).rejects.toMatchObject({
      status: 'KEY_NOT_FOUND',
    });
  });

  it('ozone.client.max.ec.stripe.write.retries bounds the groups tried', async () => {
    for (const d of cluster.datanodes)
      cluster.injectFault(d.uuid, { command: 'PutBlock', result: 'CLOSED_CONTAINER_IO' });
    const limited = newClient({ 'ozone.client.max.ec.stripe.write.retries': '2' });
    const err = await limited
      .writeKey('vol', 'ecw', 'limited', contractKeyBytes(10, 46), { replication: 'rs-3-2-4k' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ErasureCodedWriteError);
    expect((err as ErasureCodedWriteError).attempts).toBe(3);
    expect((err as ErasureCodedWriteError).failures.every((f) => f.command === 'PutBlock')).toBe(true);
  });

  it('a datanode stopped after the first stripe: the next stripe goes to a new group without it', async () => {
    const data = contractKeyBytes(3 * stripe + 1000, 41);
    forgetExchanges();
    // Last in the file, and a client of its own: a client's channel to the stopped datanode stays
    // in reconnect backoff for a while after the restart (its writes there fail over meanwhile),
    // which would move the other tests' groups.
    const writer = newClient();
    const out = await writer.createKey('vol', 'ecw', 'stopped', { replication: 'rs-3-2-4k' });
    cluster.resetCounters();
    await out.write(data.subarray(0, stripe));
    const members = createdGroup().pipeline!.members!.map((m) => m.uuid!);
    expect(busy().sort()).toEqual([...members].sort());
    const victim = members[1]!;
    await cluster.stopDatanode(victim);
    try {
      await out.write(data.subarray(stripe));
      await out.close();
    } finally {
      await cluster.restartDatanode(victim);
    }
    const info = await lookup('stopped');
    expect(await expectEcLayout(cluster, info, data, RS_3_2_SMALL, { stripeChecksums: true })).toEqual([
      stripe,
      data.length - stripe,
    ]);
    const [, second] = info.keyLocationList![0]!.keyLocations!;
    expect(second!.pipeline!.members!.map((m) => m.uuid)).not.toContain(victim);
    await expectReadBack('stopped', data, writer);
  });
});

describe('the EC read contract, on keys this client wrote', () => {
  // A client of its own writes the suite's keys, each block group of the size the suite names.
  const writerAdapter = (): OzoneClusterAdapter => {
    const writer = newClient();
    return {
      ...miniClusterAdapter(cluster),
      async writeEcKey(spec) {
        const config = parseEcReplicationConfig(spec.replication);
        const blockSizeBytes = spec.blockGroupBytes / config.data;
        await writer.writeKey(
          spec.volume,
          spec.bucket,
          spec.key,
          contractKeyBytes(spec.sizeBytes, spec.seed),
          {
            replication: spec.replication as ReplicationName,
            blockSizeBytes,
            chunkSizeBytes: Math.min(blockSizeBytes, 4 * MiB),
          },
        );
      },
    };
  };
  let adapter: OzoneClusterAdapter | undefined;
  describeEcReads(() => (adapter ??= writerAdapter()), {
    ...MINI_CLUSTER_CAPABILITIES,
    ec: { replication: 'rs-3-2-1024k', blockGroupBytes: 2 * 3 * MiB },
  });
});
