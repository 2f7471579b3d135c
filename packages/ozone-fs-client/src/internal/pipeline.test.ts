import { describe, expect, it } from '@jest/globals';
import { servesRatis } from './pipeline.js';
import { hdds, type hadoop } from './proto/wire.js';

function member(host: string, ports: Record<string, number>): hadoop.hdds.IDatanodeDetailsProto {
  return {
    uuid: `uuid-${host}`,
    ipAddress: '127.0.0.1',
    hostName: host,
    ports: Object.entries(ports).map(([name, value]) => ({ name, value })),
  };
}

function pipeline(
  type: hadoop.hdds.ReplicationType | undefined,
  members: hadoop.hdds.IDatanodeDetailsProto[],
): hadoop.hdds.IPipeline {
  return { members, id: { id: 'p1' }, ...(type !== undefined ? { type } : {}) };
}

describe('servesRatis', () => {
  it('is true for a RATIS pipeline whose members serve Ratis on a port of their own (a real datanode)', () => {
    const p = pipeline(hdds.ReplicationType.RATIS, [
      member('dn1', { STANDALONE: 9859, RATIS: 9858 }),
      member('dn2', { STANDALONE: 9869, RATIS: 9868 }),
    ]);
    expect(servesRatis(p)).toBe(true);
  });

  it('is true when only one member has a separate Ratis server, or one names no RATIS port', () => {
    expect(
      servesRatis(
        pipeline(hdds.ReplicationType.RATIS, [
          member('dn1', { STANDALONE: 9859, RATIS: 9859 }),
          member('dn2', { STANDALONE: 9869, RATIS: 9868 }),
        ]),
      ),
    ).toBe(true);
    expect(servesRatis(pipeline(hdds.ReplicationType.RATIS, [member('dn1', { STANDALONE: 9859 })]))).toBe(
      true,
    );
  });

  it('is false for datanodes that advertise their standalone port under both names', () => {
    const p = pipeline(hdds.ReplicationType.RATIS, [
      member('dn1', { STANDALONE: 40001, RATIS: 40001 }),
      member('dn2', { STANDALONE: 40002, RATIS: 40002 }),
      member('dn3', { STANDALONE: 40003, RATIS: 40003 }),
    ]);
    expect(servesRatis(p)).toBe(false);
  });

  it('is false on a STAND_ALONE pipeline (also the .proto default when type is absent)', () => {
    const members = [member('dn1', { STANDALONE: 9859, RATIS: 9858 })];
    expect(servesRatis(pipeline(hdds.ReplicationType.STAND_ALONE, members))).toBe(false);
    expect(servesRatis(pipeline(undefined, members))).toBe(false);
    expect(servesRatis(undefined)).toBe(false);
  });
});
