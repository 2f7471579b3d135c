import { describe, expect, it } from '@jest/globals';
import { OzoneProtocolError } from '../../ozone-errors.js';
import { int64, type hadoop } from '../proto/wire.js';
import { pipelineRaftGroup, pipelineUuid, uuidFromBits } from './pipeline-raft-group.js';

const PIPELINE = '4f1b2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const DN: [string, string, string] = [
  '11111111-2222-4333-8444-555555555555',
  '66666666-7777-4888-9999-aaaaaaaaaaaa',
  'bbbbbbbb-cccc-4ddd-aeee-ffffffffffff',
];

/** The two signed 64-bit halves of a UUID, as hdds `UUID` carries them. */
function bits(uuid: string): hadoop.hdds.IUUID {
  const hex = uuid.replaceAll('-', '');
  return {
    mostSigBits: int64(BigInt.asIntN(64, BigInt(`0x${hex.slice(0, 16)}`))),
    leastSigBits: int64(BigInt.asIntN(64, BigInt(`0x${hex.slice(16)}`))),
  };
}

function member(uuid: string, ratisPort: number | undefined): hadoop.hdds.IDatanodeDetailsProto {
  return {
    uuid,
    ipAddress: '10.0.0.7',
    hostName: `host-${uuid.slice(0, 4)}`,
    ports: [
      { name: 'STANDALONE', value: 9859 },
      ...(ratisPort !== undefined ? [{ name: 'RATIS', value: ratisPort }] : []),
    ],
  };
}

describe('pipelineRaftGroup', () => {
  it('takes the group id from uuid128, the peers from the members and their RATIS ports', () => {
    const group = pipelineRaftGroup(
      { id: { uuid128: bits(PIPELINE) }, members: DN.map((u, i) => member(u, 9858 + i)) },
      'om',
    );
    expect(group).toEqual({
      groupId: PIPELINE,
      peers: DN.map((id, i) => ({ id, address: `10.0.0.7:${9858 + i}` })),
      leaderId: DN[0],
    });
  });

  it('adds the RATIS_DATASTREAM port of each member that lists one, and only then', () => {
    const members = DN.map((u, i) => member(u, 9858 + i));
    members[0]?.ports?.push({ name: 'RATIS_DATASTREAM', value: 9855 });
    members[2]?.ports?.push({ name: 'RATIS_DATASTREAM', value: 9856 });
    const group = pipelineRaftGroup({ id: { uuid128: bits(PIPELINE) }, members }, 'om');
    expect(group.peers.map((p) => p.dataStreamAddress)).toEqual([
      '10.0.0.7:9855',
      undefined,
      '10.0.0.7:9856',
    ]);
    expect('dataStreamAddress' in (group.peers[1] ?? {})).toBe(false);
  });

  it('reads the older string id and members that carry only uuid128', () => {
    const group = pipelineRaftGroup(
      {
        id: { id: PIPELINE.toUpperCase() },
        members: [
          { ipAddress: '::1', hostName: 'h', uuid128: bits(DN[1]), ports: [{ name: 'RATIS', value: 1 }] },
        ],
      },
      'om',
    );
    expect(group.groupId).toBe(PIPELINE);
    expect(group.peers).toEqual([{ id: DN[1], address: '[::1]:1' }]);
  });

  it('takes the leader from leaderDatanodeID (101), then leaderID128 (100), then leaderID (6), then memberOrders', () => {
    const base = { id: { uuid128: bits(PIPELINE) }, members: DN.map((u) => member(u, 9858)) };
    expect(
      pipelineRaftGroup(
        {
          ...base,
          leaderDatanodeID: { uuid: bits(DN[2]) },
          leaderID128: bits(DN[1]),
          leaderID: DN[0],
        },
        'om',
      ).leaderId,
    ).toBe(DN[2]);
    expect(pipelineRaftGroup({ ...base, leaderID128: bits(DN[1]), leaderID: DN[0] }, 'om').leaderId).toBe(
      DN[1],
    );
    expect(pipelineRaftGroup({ ...base, leaderID: DN[2] }, 'om').leaderId).toBe(DN[2]);
    expect(pipelineRaftGroup({ ...base, memberOrders: [2, 0, 1] }, 'om').leaderId).toBe(DN[1]);
    // A leader that is not a member is not sent to.
    expect(pipelineRaftGroup({ ...base, leaderID: 'not-a-member' }, 'om').leaderId).toBe(DN[0]);
  });

  it('refuses a pipeline without a UUID and a member without a RATIS port, with a typed error', () => {
    expect(() =>
      pipelineRaftGroup({ id: { id: 'pipeline-a,b' }, members: [member(DN[0], 1)] }, 'om'),
    ).toThrow(OzoneProtocolError);
    expect(() =>
      pipelineRaftGroup({ id: { uuid128: bits(PIPELINE) }, members: [member(DN[0], undefined)] }, 'om'),
    ).toThrow(/advertises no RATIS port/);
  });

  it('encodes UUIDs from their signed halves', () => {
    expect(uuidFromBits(-1n, -1n)).toBe('ffffffff-ffff-ffff-ffff-ffffffffffff');
    expect(pipelineUuid({ id: { uuid128: bits(PIPELINE) } })).toBe(PIPELINE);
  });
});
