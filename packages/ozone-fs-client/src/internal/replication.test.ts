import { ErasureCodingConfigError, OzoneInvalidArgumentError } from '../ozone-errors.js';
import {
  checkReplicationAllowed,
  DEFAULT_REPLICATION_ALLOWED_CONFIGS,
  parseReplication,
  replicationConfigFormat,
  replicationFromProto,
  replicationKeyArgs,
  replicationText,
} from './replication.js';
import { hdds } from './proto/wire.js';

describe('replication text', () => {
  it('reads factors as RATIS and anything else as an EC config, as ReplicationConfig.parse', () => {
    expect(parseReplication('THREE')).toEqual({ type: 'RATIS', factor: 'THREE' });
    expect(parseReplication('1')).toEqual({ type: 'RATIS', factor: 'ONE' });
    expect(parseReplication('RS-6-3-1024K')).toEqual({
      type: 'EC',
      config: { codec: 'rs', data: 6, parity: 3, ecChunkSize: 1048576 },
    });
    expect(parseReplication('xor-2-1-4096', 'EC')).toMatchObject({
      config: { codec: 'xor', ecChunkSize: 4096 },
    });
  });

  it('refuses what neither type can hold, with the type it was asked as', () => {
    expect(() => parseReplication('TWO', 'RATIS')).toThrow(OzoneInvalidArgumentError);
    expect(() => parseReplication('rs-3-2-1024k', 'RATIS')).toThrow(OzoneInvalidArgumentError);
    expect(() => parseReplication('THREE', 'EC')).toThrow(ErasureCodingConfigError);
    expect(() => parseReplication('lrc-3-2-1024k')).toThrow(ErasureCodingConfigError);
    expect(() => parseReplication('rs-3-0-1024k')).toThrow(ErasureCodingConfigError);
  });

  it('formats as Ozone does, and round-trips its text', () => {
    const ec = parseReplication('rs-3-2-1024k');
    expect(replicationConfigFormat(ec)).toBe('EC/3-2-1024k');
    expect(replicationConfigFormat({ type: 'RATIS', factor: 'ONE' })).toBe('RATIS/ONE');
    expect(replicationText(ec)).toBe('rs-3-2-1024k');
    expect(replicationText(parseReplication('rs-3-2-1000'))).toBe('rs-3-2-1000');
    expect(replicationText({ type: 'RATIS', factor: 'THREE' })).toBe('THREE');
  });
});

describe('ozone.replication.allowed-configs', () => {
  it("matches the whole configFormat() with Ozone's default pattern", () => {
    for (const ok of ['rs-3-2-1024k', 'rs-6-3-512k', 'rs-10-4-4096k', 'ONE', 'THREE'])
      expect(() =>
        checkReplicationAllowed(parseReplication(ok), DEFAULT_REPLICATION_ALLOWED_CONFIGS),
      ).not.toThrow();
    // xor's configFormat has no codec: EC/2-1-1024k, which the default does not list.
    for (const refused of ['xor-2-1-1024k', 'rs-6-3-4k', 'rs-3-2-1000'])
      expect(() =>
        checkReplicationAllowed(parseReplication(refused), DEFAULT_REPLICATION_ALLOWED_CONFIGS),
      ).toThrow(/Invalid replication config EC\/.*ozone.replication.allowed-configs/);
  });

  it('allows everything with an empty pattern, and anchors both ends of any other', () => {
    expect(checkReplicationAllowed(parseReplication('xor-2-1-1024k'), '')).toBeDefined();
    expect(() => checkReplicationAllowed(parseReplication('rs-3-2-1024k'), 'EC/3-2')).toThrow(
      ErasureCodingConfigError,
    );
    expect(() => checkReplicationAllowed({ type: 'RATIS', factor: 'ONE' }, 'RATIS/THREE')).toThrow(
      OzoneInvalidArgumentError,
    );
  });
});

describe('replication on the wire', () => {
  it('states EC with its config and RATIS with its factor', () => {
    expect(replicationKeyArgs(parseReplication('rs-3-2-1024k'))).toEqual({
      type: hdds.ReplicationType.EC,
      ecReplicationConfig: { data: 3, parity: 2, codec: 'rs', ecChunkSize: 1048576 },
    });
    expect(replicationKeyArgs({ type: 'RATIS', factor: 'ONE' })).toEqual({
      type: hdds.ReplicationType.RATIS,
      factor: hdds.ReplicationFactor.ONE,
    });
  });

  it('reads back what a KeyInfo states, upper-case codecs too', () => {
    expect(
      replicationFromProto(hdds.ReplicationType.EC, null, {
        data: 6,
        parity: 3,
        codec: 'RS',
        ecChunkSize: 4096,
      }),
    ).toEqual({ type: 'EC', config: { codec: 'rs', data: 6, parity: 3, ecChunkSize: 4096 } });
    expect(replicationFromProto(hdds.ReplicationType.RATIS, hdds.ReplicationFactor.ONE, null)).toEqual({
      type: 'RATIS',
      factor: 'ONE',
    });
    expect(replicationFromProto(hdds.ReplicationType.NONE, null, null)).toBeUndefined();
    expect(() => replicationFromProto(hdds.ReplicationType.EC, null, null)).toThrow(ErasureCodingConfigError);
  });
});
