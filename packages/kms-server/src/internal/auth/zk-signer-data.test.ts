import { decodeZkSignerData, encodeZkSignerData } from './zk-signer-data.js';

const bytes = (fill: number, n = 32): Buffer => Buffer.alloc(n, fill);

describe("the signer secrets znode (Hadoop's ZKSignerSecretProvider layout)", () => {
  it('writes version, next, current, previous and the next rollover big-endian, as Hadoop does', () => {
    const encoded = encodeZkSignerData({
      next: bytes(1, 2),
      current: bytes(2, 3),
      previous: bytes(3, 1),
      nextRolloverMs: 0x0102030405,
    });
    expect(encoded.toString('hex')).toBe(
      '00000000' + '00000002' + '0101' + '00000003' + '020202' + '00000001' + '03' + '0000000102030405',
    );
  });

  it('writes no previous secret as a zero length, and reads it back as none', () => {
    const data = {
      next: bytes(7),
      current: bytes(8),
      previous: undefined,
      nextRolloverMs: 1_700_000_000_000,
    };
    const encoded = encodeZkSignerData(data);
    expect(encoded.length).toBe(4 + 4 + 32 + 4 + 32 + 4 + 8);
    expect(decodeZkSignerData(encoded)).toEqual(data);
  });

  it('refuses a newer layout, a truncated znode and an empty current secret', () => {
    const good = encodeZkSignerData({
      next: bytes(1),
      current: bytes(2),
      previous: bytes(3),
      nextRolloverMs: 5,
    });
    const newer = Buffer.from(good);
    newer.writeInt32BE(1, 0);
    expect(() => decodeZkSignerData(newer)).toThrow(/layout 1, newer than the 0/);
    expect(() => decodeZkSignerData(good.subarray(0, good.length - 3))).toThrow(
      /ends inside the next rollover time/,
    );
    expect(() => decodeZkSignerData(good.subarray(0, 20))).toThrow(/ends inside the next secret/);
    const emptyCurrent = encodeZkSignerData({
      next: bytes(1),
      current: Buffer.alloc(0),
      previous: undefined,
      nextRolloverMs: 5,
    });
    expect(() => decodeZkSignerData(emptyCurrent)).toThrow(/current secret a length of 0/);
  });
});
