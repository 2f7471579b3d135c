import { InvalidOptionError } from '@fastpath/core';
import { parseEcReplication } from './ec-replication.js';

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
