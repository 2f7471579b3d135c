import fc from 'fast-check';
import { DataOutput } from './data-output.js';
import { DelegationTokenIdentifier } from './delegation-token-identifier.js';
import { decodeTokenNode, encodeTokenNode } from './token-node.js';
import { WireFormatError } from './wire-format-error.js';
import { expectError } from '@fastpath/test-support';

const wireError = (fn: () => unknown): WireFormatError =>
  expectError(fn, WireFormatError, { code: 'ERR_WIRE_FORMAT', retriable: false });

const ID = new DelegationTokenIdentifier('kms-dt', {
  owner: 'bjørn',
  renewer: 'yarn',
  realUser: '',
  issueDate: 1_700_000_000_000,
  maxDate: 1_700_604_800_000,
  sequenceNumber: 1000,
  masterKeyId: -113,
});

describe('token node payload', () => {
  it('is identifier ‖ renewDate int64 BE ‖ password length int32 BE ‖ password', () => {
    const node = encodeTokenNode({
      identifier: ID.bytes,
      renewDate: 1_700_086_400_000, // 0x018BD50BC400
      password: Buffer.from('DEADBEEF', 'hex'),
    });
    expect(node.toString('hex').toUpperCase()).toBe(
      '0006626AC3B8726E047961726E008A018BCFE568008A018BF3F1EC008E03E88770' +
        '0000018BD50BC400' +
        '00000004' +
        'DEADBEEF',
    );
    const back = decodeTokenNode('kms-dt', node);
    expect(back.identifier.equals(ID)).toBe(true);
    expect(back.identifier.kind).toBe('kms-dt');
    expect(back.renewDate).toBe(1_700_086_400_000);
    expect(back.password.toString('hex')).toBe('deadbeef');
  });

  it('round-trips arbitrary identifiers, dates and passwords', () => {
    const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    fc.assert(
      fc.property(
        fc.record({
          owner: fc.string({ unit: 'binary', maxLength: 30 }),
          renewer: fc.string({ unit: 'binary', maxLength: 30 }),
          realUser: fc.string({ unit: 'binary', maxLength: 30 }),
          issueDate: fc.maxSafeInteger(),
          maxDate: fc.maxSafeInteger(),
          sequenceNumber: int32,
          masterKeyId: int32,
        }),
        fc.maxSafeInteger(),
        fc.uint8Array({ maxLength: 64 }),
        (fields, renewDate, password) => {
          const id = new DelegationTokenIdentifier('kms-dt', fields);
          const node = encodeTokenNode({ identifier: id.bytes, renewDate, password: Buffer.from(password) });
          const back = decodeTokenNode('kms-dt', node);
          expect(back.identifier.toFields()).toEqual(fields);
          expect(back.renewDate).toBe(renewDate);
          expect(back.password.equals(Buffer.from(password))).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('finds the renew date by parsing the identifier, not by a length', () => {
    // The same node with an identifier ending in a 5-byte VInt: any fixed split would misread it.
    const id = ID.with({ masterKeyId: -(2 ** 31) });
    const node = encodeTokenNode({ identifier: id.bytes, renewDate: 42, password: Buffer.alloc(0) });
    const back = decodeTokenNode('kms-dt', node);
    expect(back.identifier.masterKeyId).toBe(-(2 ** 31));
    expect(back.renewDate).toBe(42);
    expect(back.password.length).toBe(0);
  });

  it('refuses trailing bytes, every truncation and negative password lengths', () => {
    const node = encodeTokenNode({
      identifier: ID.bytes,
      renewDate: 1,
      password: Buffer.from('0102', 'hex'),
    });
    expect(wireError(() => decodeTokenNode('kms-dt', Buffer.concat([node, Buffer.of(0)]))).message).toMatch(
      /1 unexpected trailing bytes/,
    );
    for (let n = 0; n < node.length; n++) wireError(() => decodeTokenNode('kms-dt', node.subarray(0, n)));
    const negative = new DataOutput().writeRaw(ID.bytes).writeInt64(1).writeInt32(-1).toBuffer();
    expect(wireError(() => decodeTokenNode('kms-dt', negative)).message).toBe(
      'token node password length -1 is negative',
    );
    const huge = new DataOutput()
      .writeRaw(ID.bytes)
      .writeInt64(1)
      .writeInt32(2 ** 31 - 1)
      .toBuffer();
    wireError(() => decodeTokenNode('kms-dt', huge));
  });

  it('reads a renew date beyond 2^53 exactly, and refuses a bad identifier version', () => {
    const large = new DataOutput()
      .writeRaw(ID.bytes)
      .writeInt64(1n << 60n)
      .writeInt32(0)
      .toBuffer();
    expect(decodeTokenNode('kms-dt', large).renewDateLong).toBe(1n << 60n);
    const v2 = Buffer.from(
      encodeTokenNode({ identifier: ID.bytes, renewDate: 1, password: Buffer.alloc(0) }),
    );
    v2[0] = 2;
    expect(wireError(() => decodeTokenNode('kms-dt', v2)).message).toBe(
      'Unknown version of delegation token 2',
    );
  });

  it('refuses to encode values the layout cannot carry', () => {
    wireError(() => encodeTokenNode({ identifier: ID.bytes, renewDate: 2 ** 53, password: Buffer.alloc(0) }));
    wireError(() => encodeTokenNode({ identifier: ID.bytes, renewDate: 1.5, password: Buffer.alloc(0) }));
    wireError(() =>
      encodeTokenNode({ identifier: 'x' as unknown as Buffer, renewDate: 1, password: Buffer.alloc(0) }),
    );
  });
});
