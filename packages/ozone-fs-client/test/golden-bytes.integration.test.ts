// Golden bytes: every request the client sends, as the mini cluster received it off the wire,
// against bytes built by hand from Ozone's field numbers (`@fastpath/test-support`'s protobuf-bytes).
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOzoneClient, type OzoneClient } from '@fastpath/ozone-fs-client';
import {
  miniPipelineId,
  startMiniOzoneCluster,
  type MiniOzoneCluster,
} from '@fastpath/ozone-fs-client/testing';
import { hex, l, v, type Bytes } from '@fastpath/test-support';

// Field numbers, spelled out once (OmClientProtocol.proto / DatanodeClientProtocol.proto).
const OM = { cmdType: 1, clientId: 3, userInfo: 4, version: 5 };
const USER = 'golden';

let cluster: MiniOzoneCluster;
let client: OzoneClient;
let uuid: string;

beforeAll(async () => {
  cluster = await startMiniOzoneCluster({ datanodes: 1 });
  client = createOzoneClient({
    omAddress: cluster.omAddress,
    userName: USER,
    config: { chunkSizeBytes: 8192, blockSizeBytes: 8192 },
  });
  uuid = cluster.datanodes[0]?.uuid as string;
});
afterAll(async () => {
  client?.close();
  await cluster?.close();
});

/** The envelope Java's client puts around every OM request: cmdType, clientId, userInfo.userName, version 3. */
function omRequest(cmdType: number, ...body: Bytes[]): string {
  return hex([
    ...v(OM.cmdType, cmdType),
    ...l(OM.clientId, client.clientId),
    ...l(OM.userInfo, l(1, USER)),
    ...v(OM.version, 3),
    ...body.flat(),
  ]);
}

function lastOmRequest(): string {
  return hex(cluster.om.exchanges[cluster.om.exchanges.length - 1]?.request ?? []);
}

function lastOmResponse(): Buffer {
  return cluster.om.exchanges[cluster.om.exchanges.length - 1]?.response ?? Buffer.alloc(0);
}

/** The requests datanode 0 received on its standalone port (reads), as raw bytes in hex. */
function dnRequests(): string[] {
  return (cluster.datanodes[0]?.received ?? []).map((b) => hex(b));
}

/**
 * The content of every Ratis write the pipeline's group received (RaftClientRequestProto field 2
 * `message` → field 1 `content`), in arrival order; watches carry none.
 */
function ratisContents(): string[] {
  const group = cluster.ratis.group(miniPipelineId([uuid]));
  return (group?.received ?? []).flatMap((request) => {
    const content = readField(request, [2, 1]);
    return content instanceof Buffer ? [hex(content)] : [];
  });
}

/** The container-command message Ozone's datanodes take as Ratis content: header length (4 bytes, big-endian), header, data. */
function containerCommandMessage(header: Bytes, data: Bytes = []): string {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(header.length);
  return hex([...length, ...header, ...data]);
}

/** Reads a varint field of a message by hand (for the IDs the OM chose). */
function readVarintField(bytes: Buffer, path: number[]): bigint {
  const found = readField(bytes, path);
  return typeof found === 'bigint' ? found : 0n;
}

/** Reads a field of a message by hand: a varint as a bigint, a length-delimited field as its bytes; undefined when absent. */
function readField(bytes: Buffer, path: number[]): Buffer | bigint | undefined {
  let buf = bytes;
  for (let depth = 0; depth < path.length; depth++) {
    let i = 0;
    let found: Buffer | bigint | undefined;
    while (i < buf.length && found === undefined) {
      let tag = 0n;
      let shift = 0n;
      for (;;) {
        const b = buf[i++] as number;
        tag |= BigInt(b & 0x7f) << shift;
        shift += 7n;
        if (b < 0x80) break;
      }
      const field = Number(tag >> 3n);
      const wt = Number(tag & 7n);
      let value = 0n;
      shift = 0n;
      if (wt === 0 || wt === 2) {
        for (;;) {
          const b = buf[i++] as number;
          value |= BigInt(b & 0x7f) << shift;
          shift += 7n;
          if (b < 0x80) break;
        }
      }
      if (wt === 2) {
        if (field === path[depth]) found = buf.subarray(i, i + Number(value));
        i += Number(value);
      } else if (field === path[depth]) found = value;
    }
    if (found === undefined) return undefined;
    if (depth === path.length - 1) return found;
    buf = found as Buffer;
  }
  return 0n;
}

const keyArgs = (...rest: Bytes[]): Bytes => [
  ...l(1, 'vol1'),
  ...l(2, 'bucket1'),
  ...l(3, 'k'),
  ...rest.flat(),
];

describe('OM requests', () => {
  it('CreateVolume (11): VolumeInfo{adminName=1, ownerName=2, volume=3} at field 11', async () => {
    await client.createVolume('vol1');
    expect(lastOmRequest()).toBe(omRequest(11, l(11, l(1, l(1, USER), l(2, USER), l(3, 'vol1')))));
  });

  it('InfoVolume (14), ListVolume (16), DeleteVolume (15)', async () => {
    await client.getVolume('vol1');
    expect(lastOmRequest()).toBe(omRequest(14, l(14, l(1, 'vol1'))));
    await client.listVolumes();
    // scope=1 VOLUMES_BY_USER(2), userName=2, maxKeys=5
    expect(lastOmRequest()).toBe(omRequest(16, l(16, v(1, 2), l(2, USER), v(5, 1000))));
    await client.createVolume('vol2');
    await client.deleteVolume('vol2');
    expect(lastOmRequest()).toBe(omRequest(15, l(15, l(1, 'vol2'))));
  });

  it('CreateBucket (21): every required field on the wire, layout at 18, owner at 19', async () => {
    await client.createBucket('vol1', 'bucket1', { layout: 'OBJECT_STORE' });
    // isVersionEnabled=4 false and storageType=5 DISK(1) are required and present although default.
    expect(lastOmRequest()).toBe(
      omRequest(21, l(21, l(1, l(1, 'vol1'), l(2, 'bucket1'), v(4, false), v(5, 1), v(18, 3), l(19, USER)))),
    );
  });

  it('InfoBucket (22), ListBuckets (25), DeleteBucket (24)', async () => {
    await client.getBucket('vol1', 'bucket1');
    expect(lastOmRequest()).toBe(omRequest(22, l(22, l(1, 'vol1'), l(2, 'bucket1'))));
    await client.listBuckets('vol1', { prefix: 'b' });
    expect(lastOmRequest()).toBe(omRequest(25, l(25, l(1, 'vol1'), l(3, 'b'), v(4, 1000))));
    await client.createBucket('vol1', 'bucket2');
    await client.deleteBucket('vol1', 'bucket2');
    expect(lastOmRequest()).toBe(omRequest(24, l(24, l(1, 'vol1'), l(2, 'bucket2'))));
  });

  it('CreateKey (31), then WriteChunk, PutBlock, CommitKey (36)', async () => {
    const data = Buffer.from('hello');
    const out = await client.createKey('vol1', 'bucket1', 'k', { sizeBytes: 5 });
    // KeyArgs: dataSize=4, isMultipartKey=8, sortDatanodes=14, ownerName=21; no type=5/factor=6, so
    // that the OM applies the bucket's or its own default replication.
    expect(lastOmRequest()).toBe(
      omRequest(31, l(31, l(1, keyArgs(v(4, 5), v(8, false), v(14, false), l(21, USER))))),
    );
    // CreateKeyResponse (31): ID=3; keyInfo=2 → keyLocationList=7 → keyLocations=2 → blockID=1 → containerBlockID=1 → localID=2
    const id = readVarintField(lastOmResponse(), [31, 3]);
    const localId = readVarintField(lastOmResponse(), [31, 2, 7, 2, 1, 1, 2]);
    await out.write(data);
    await out.close();
    const blockId = [...v(1, 1), ...v(2, localId), ...v(3, 0)];
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(data));
    // ChunkInfo: chunkName=1, offset=2, len=3, checksumData=5{type=1 CRC32(2), bytesPerChecksum=2, checksums=3}
    const chunk = [
      ...l(1, `${localId}_chunk_1`),
      ...v(2, 0),
      ...v(3, 5),
      ...l(5, v(1, 2), v(2, 16384), l(3, crc)),
    ];
    const sent = ratisContents();
    // Through the pipeline's Raft group: cmdType=1, containerID=3, datanodeUuid=4,
    // writeChunk=17{blockID=1, chunkData=2} without data=3 (the data follows the header), version=24
    expect(sent[sent.length - 2]).toBe(
      containerCommandMessage(
        [...v(1, 12), ...v(3, 1), ...l(4, uuid), ...l(17, l(1, blockId), l(2, chunk)), ...v(24, 3)],
        [...data],
      ),
    );
    // putBlock=12{blockData=1{blockID=1, metadata=3{key=1,value=2}, chunks=4, size=5}, eof=2}, no data
    expect(sent[sent.length - 1]).toBe(
      containerCommandMessage([
        ...v(1, 6),
        ...v(3, 1),
        ...l(4, uuid),
        ...l(12, l(1, l(1, blockId), l(3, l(1, 'TYPE'), l(2, 'KEY')), l(4, chunk), v(5, 5)), v(2, true)),
        ...v(24, 3),
      ]),
    );
    // KeyLocation: blockID=1{containerBlockID=1{containerID=1, localID=2}, blockCommitSequenceId=2}, offset=3, length=4
    // blockCommitSequenceId: the log index of the PutBlock, the group's last entry.
    const bcsid = cluster.ratis.group(miniPipelineId([uuid]))?.lastIndex ?? -1;
    expect(bcsid).toBeGreaterThan(0);
    const location = l(7, l(1, l(1, v(1, 1), v(2, localId)), v(2, bcsid)), v(3, 0), v(4, 5));
    expect(lastOmRequest()).toBe(
      omRequest(36, l(36, l(1, keyArgs(v(4, 5), v(5, 1), v(6, 3), location)), v(2, id))),
    );
  });

  it('AllocateBlock (37) when a key needs a second block', async () => {
    const out = await client.createKey('vol1', 'bucket1', 'k2');
    const id = readVarintField(lastOmResponse(), [31, 3]);
    await out.write(Buffer.alloc(8193));
    const allocate = cluster.om.exchanges.map((e) => hex(e.request)).find((r) => r.startsWith(hex(v(1, 37))));
    const expected = hex([
      ...v(1, 37),
      ...l(3, client.clientId),
      ...l(4, l(1, USER)),
      ...v(5, 3),
      ...l(37, l(1, l(1, 'vol1'), l(2, 'bucket1'), l(3, 'k2'), v(4, 8192), v(5, 1), v(6, 3)), v(2, id)),
    ]);
    await out.close();
    expect(
      allocate ?? cluster.om.exchanges.map((e) => hex(e.request)).find((r) => r.startsWith(hex(v(1, 37)))),
    ).toBe(expected);
  });

  it('GetKeyInfo (111) with latestVersionLocation, then GetBlock and ReadChunk V1', async () => {
    const data = await client.readKey('vol1', 'bucket1', 'k');
    expect(data.toString()).toBe('hello');
    const info = cluster.om.exchanges.map((e) => hex(e.request)).filter((r) => r.startsWith(hex(v(1, 111))));
    // keyArgs: sortDatanodes=14 false, latestVersionLocation=16 true
    expect(info[info.length - 1]).toBe(omRequest(111, l(111, l(1, keyArgs(v(14, false), v(16, true))))));
    const keyInfo = cluster.om.exchanges[cluster.om.exchanges.length - 1]?.response as Buffer;
    const localId = readVarintField(keyInfo, [111, 1, 7, 2, 1, 1, 2]);
    // The BCSID the key was committed with (its PutBlock's log index) travels with every read.
    const bcsid = readVarintField(keyInfo, [111, 1, 7, 2, 1, 2]);
    expect(bcsid).toBeGreaterThan(0n);
    const blockId = [...v(1, 1), ...v(2, localId), ...v(3, bcsid)];
    const dn = dnRequests();
    expect(dn[dn.length - 2]).toBe(
      hex([...v(1, 7), ...v(3, 1), ...l(4, uuid), ...l(13, l(1, blockId)), ...v(24, 3)]),
    );
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.from('hello')));
    const chunk = [
      ...l(1, `${localId}_chunk_1`),
      ...v(2, 0),
      ...v(3, 5),
      ...l(5, v(1, 2), v(2, 16384), l(3, crc)),
    ];
    // readChunk=16{blockID=1, chunkData=2, readChunkVersion=3 V1(1)}
    expect(dn[dn.length - 1]).toBe(
      hex([
        ...v(1, 10),
        ...v(3, 1),
        ...l(4, uuid),
        ...l(16, l(1, blockId), l(2, chunk), v(3, 1)),
        ...v(24, 3),
      ]),
    );
  });

  it('LookupKey (32), ListKeys (35), RenameKey (33), DeleteKey (34)', async () => {
    await client.lookupKey('vol1', 'bucket1', 'k');
    expect(lastOmRequest()).toBe(omRequest(32, l(32, l(1, keyArgs(v(16, true))))));
    await client.listKeys('vol1', 'bucket1', { startAfter: 'a', prefix: 'k' });
    expect(lastOmRequest()).toBe(
      omRequest(35, l(35, l(1, 'vol1'), l(2, 'bucket1'), l(3, 'a'), l(4, 'k'), v(5, 1000))),
    );
    await client.renameKey('vol1', 'bucket1', 'k', 'k3');
    expect(lastOmRequest()).toBe(omRequest(33, l(33, l(1, keyArgs()), l(2, 'k3'))));
    await client.deleteKey('vol1', 'bucket1', 'k3');
    expect(lastOmRequest()).toBe(
      hex([
        ...v(1, 34),
        ...l(3, client.clientId),
        ...l(4, l(1, USER)),
        ...v(5, 3),
        ...l(34, l(1, l(1, 'vol1'), l(2, 'bucket1'), l(3, 'k3'))),
      ]),
    );
  });
});
