import { expectError } from '@fastpath/test-support';
import { FastpathError } from '@fastpath/core';
import {
  expectedDataLocations,
  internalBlockLength,
  locateInGroup,
  parseEcReplicationConfig,
} from './ec-stripe-layout.js';

const RS_3_2 = parseEcReplicationConfig('rs-3-2-1024k');
const C = 1_048_576;

describe('EC replication config text', () => {
  it('parses Ozone’s forms', () => {
    expect(RS_3_2).toEqual({ codec: 'rs', data: 3, parity: 2, ecChunkSize: C });
    expect(parseEcReplicationConfig('RS-6-3-1024k')).toEqual({
      codec: 'rs',
      data: 6,
      parity: 3,
      ecChunkSize: C,
    });
    expect(parseEcReplicationConfig('xor-2-1-4096')).toEqual({
      codec: 'xor',
      data: 2,
      parity: 1,
      ecChunkSize: 4096,
    });
  });

  it('refuses what Ozone’s parser or the coders refuse with ERR_OZONE_EC_CONFIG', () => {
    for (const bad of [
      'rs-3-2',
      'rs-0-2-1024k',
      'rs-3-0-1024k',
      'lrc-3-2-1024k',
      'rs-3-2-0k',
      'rs-3-2-1024m',
      'xor-2-2-1024k',
    ]) {
      expect({ bad, err: expectError(() => parseEcReplicationConfig(bad), FastpathError) }).toMatchObject({
        bad,
        err: { code: 'ERR_OZONE_EC_CONFIG' },
      });
    }
  });
});

describe('stripe layout', () => {
  it('maps the published offset of rs-3-2-1024k to replica 3', () => {
    expect(locateInGroup(RS_3_2, 10_000_000, 5_500_000)).toEqual({
      stripe: 1,
      replicaIndex: 3,
      offsetInCell: 257_120,
      offsetInReplica: 1_305_696,
      bytesToCellEnd: C - 257_120,
    });
  });

  it('stops a read at the cell end and at the group end', () => {
    expect(locateInGroup(RS_3_2, 3 * C + 10, C - 1)).toMatchObject({
      replicaIndex: 1,
      bytesToCellEnd: 1,
    });
    expect(locateInGroup(RS_3_2, 3 * C + 10, C)).toMatchObject({
      replicaIndex: 2,
      offsetInCell: 0,
    });
    expect(locateInGroup(RS_3_2, 3 * C + 10, 3 * C + 4)).toMatchObject({
      stripe: 1,
      replicaIndex: 1,
      offsetInReplica: C + 4,
      bytesToCellEnd: 6,
    });
  });

  it('gives the published internal block lengths', () => {
    const lengths = (L: number) => [1, 2, 3, 4, 5].map((i) => internalBlockLength(RS_3_2, L, i));
    expect(lengths(1)).toEqual([1, 0, 0, 1, 1]);
    expect(lengths(5_000_000)).toEqual([2_097_152, 1_854_272, 1_048_576, 2_097_152, 2_097_152]);
    expect(lengths(7_000_000)).toEqual([2_805_696, 2_097_152, 2_097_152, 2_805_696, 2_805_696]);
    expect(lengths(0)).toEqual([0, 0, 0, 0, 0]);
    expect(lengths(6 * C)).toEqual([2 * C, 2 * C, 2 * C, 2 * C, 2 * C]);
  });

  it('has the data replicas’ lengths sum to the group length, and every byte on one of them', () => {
    for (const L of [1, C - 1, C, C + 1, 3 * C - 1, 3 * C, 3 * C + 1, 7 * C + 12345]) {
      const sum = [1, 2, 3].reduce((acc, i) => acc + internalBlockLength(RS_3_2, L, i), 0);
      expect({ L, sum }).toEqual({ L, sum: L });
      const lastByte = locateInGroup(RS_3_2, L, L - 1);
      expect(lastByte.offsetInReplica).toBe(internalBlockLength(RS_3_2, L, lastByte.replicaIndex) - 1);
    }
  });

  it('expects data on min(⌈L / c⌉, d) replicas', () => {
    expect([1, C, C + 1, 2 * C + 1, 10 * C].map((L) => expectedDataLocations(RS_3_2, L))).toEqual([
      1, 1, 2, 3, 3,
    ]);
  });
});
