import { describe, expect, it } from '@jest/globals';
import { ratisBypass } from './pipeline.js';
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

describe('ratisBypass', () => {
  it('names the member of a RATIS pipeline that serves Ratis on a port of its own (a real datanode)', () => {
    const p = pipeline(hdds.ReplicationType.RATIS, [
      member('dn1', { STANDALONE: 9859, RATIS: 9858 }),
      member('dn2', { STANDALONE: 9869, RATIS: 9868 }),
    ]);
    expect(ratisBypass(p)).toEqual({ hostName: 'dn1', ratisAddress: '127.0.0.1:9858' });
  });

  it('refuses when only one member has a separate Ratis server', () => {
    const p = pipeline(hdds.ReplicationType.RATIS, [
      member('dn1', { STANDALONE: 9859, RATIS: 9859 }),
      member('dn2', { STANDALONE: 9869, RATIS: 9868 }),
    ]);
    expect(ratisBypass(p)?.hostName).toBe('dn2');
  });

  it('refuses a RATIS pipeline member that advertises no RATIS port', () => {
    const p = pipeline(hdds.ReplicationType.RATIS, [member('dn1', { STANDALONE: 9859 })]);
    expect(ratisBypass(p)).toEqual({ hostName: 'dn1', ratisAddress: undefined });
  });

  it('lets the embedded cluster write: its datanodes advertise the standalone port under both names', () => {
    const p = pipeline(hdds.ReplicationType.RATIS, [
      member('dn1', { STANDALONE: 40001, RATIS: 40001 }),
      member('dn2', { STANDALONE: 40002, RATIS: 40002 }),
      member('dn3', { STANDALONE: 40003, RATIS: 40003 }),
    ]);
    expect(ratisBypass(p)).toBeUndefined();
  });

  it('has nothing to bypass on a STAND_ALONE pipeline (also the .proto default when type is absent)', () => {
    const members = [member('dn1', { STANDALONE: 9859, RATIS: 9858 })];
    expect(ratisBypass(pipeline(hdds.ReplicationType.STAND_ALONE, members))).toBeUndefined();
    expect(ratisBypass(pipeline(undefined, members))).toBeUndefined();
    expect(ratisBypass(undefined)).toBeUndefined();
  });
});
