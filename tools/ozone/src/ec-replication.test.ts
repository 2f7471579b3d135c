import { InvalidOptionError } from '@fastpath/core';
import {
  ecBlockGroupLengths,
  ecExpectedDataLocations,
  ecGroupReadable,
  ecInternalBlockLengths,
  parseEcReplication,
} from './ec-replication.js';

const MiB = 1 << 20;

describe('parseEcReplication', () => {
  it("parses Ozone's text forms as ECReplicationConfig(String) does", () => {
    expect(parseEcReplication('rs-3-2-1024k')).toEqual({
      codec: 'rs',
      dataUnits: 3,
      parityUnits: 2,
      cellBytes: MiB,
      text: 'rs-3-2-1024k',
      configFormat: 'EC/3-2-1024k',
    });
    expect(parseEcReplication('RS-6-3-2048').text).toBe('rs-6-3-2k');
    expect(parseEcReplication('XOR-2-1-64K')).toMatchObject({
      codec: 'xor',
      cellBytes: 65_536,
      configFormat: 'EC/2-1-64k',
    });
    // A cell of whole bytes keeps its bytes; Ozone's config format rounds down to KiB.
    expect(parseEcReplication('rs-3-2-1000')).toMatchObject({
      text: 'rs-3-2-1000',
      configFormat: 'EC/3-2-0k',
    });
  });

  it.each([
    '',
    'rs-3-2',
    'rs-3-2-1024m',
    'ec-3-2-1024k',
    'rs-3-0-1024k',
    'rs--3-2-1k',
    'rs-3-2-2097152k',
    7,
    undefined,
  ])('refuses %j, naming the option', (text) => {
    expect(() => parseEcReplication(text, 'keys[3].replication')).toThrow(InvalidOptionError);
    try {
      parseEcReplication(text, 'keys[3].replication');
    } catch (err) {
      expect((err as InvalidOptionError).option).toBe('keys[3].replication');
    }
  });
});

describe('EC layout', () => {
  const rs32 = parseEcReplication('rs-3-2-1024k');

  it("gives each internal block the length of the spec's table (rs-3-2-1024k)", () => {
    expect(ecInternalBlockLengths(1, rs32)).toEqual([1, 0, 0, 1, 1]);
    expect(ecInternalBlockLengths(5_000_000, rs32)).toEqual([
      2_097_152, 1_854_272, 1_048_576, 2_097_152, 2_097_152,
    ]);
    expect(ecInternalBlockLengths(7_000_000, rs32)).toEqual([
      2_805_696, 2_097_152, 2_097_152, 2_805_696, 2_805_696,
    ]);
    expect(ecInternalBlockLengths(3 * MiB, rs32)).toEqual([MiB, MiB, MiB, MiB, MiB]);
  });

  it('internal data blocks always add up to the group', () => {
    const ec = parseEcReplication('rs-6-3-1k');
    for (const l of [1, 1023, 1024, 1025, 6143, 6144, 6145, 100_000]) {
      const lengths = ecInternalBlockLengths(l, ec);
      expect(lengths).toHaveLength(9);
      expect(lengths.slice(0, 6).reduce((a, b) => a + b)).toBe(l);
    }
  });

  it('cuts a key into block groups of data units × block size', () => {
    expect(ecBlockGroupLengths(0, rs32, 4 * MiB)).toEqual([]);
    expect(ecBlockGroupLengths(12 * MiB, rs32, 4 * MiB)).toEqual([12 * MiB]);
    expect(ecBlockGroupLengths(25 * MiB, rs32, 4 * MiB)).toEqual([12 * MiB, 12 * MiB, MiB]);
  });

  it('a group reads while its expected data locations can be made up from survivors', () => {
    expect(ecExpectedDataLocations(1, rs32)).toBe(1);
    expect(ecExpectedDataLocations(MiB + 1, rs32)).toBe(2);
    expect(ecExpectedDataLocations(100 * MiB, rs32)).toBe(3);
    // All data lost: one or two cells come back from the two parities, three do not.
    expect(ecGroupReadable(1, rs32, [1, 2, 3])).toBe(true);
    expect(ecGroupReadable(MiB + 1, rs32, [1, 2, 3])).toBe(true);
    expect(ecGroupReadable(2 * MiB + 1, rs32, [1, 2, 3])).toBe(false);
    expect(ecGroupReadable(2 * MiB + 1, rs32, [1, 2])).toBe(true);
    expect(ecGroupReadable(1, rs32, [1, 4, 5])).toBe(false);
    expect(ecGroupReadable(1, rs32, [2, 3, 4])).toBe(true);
  });
});
