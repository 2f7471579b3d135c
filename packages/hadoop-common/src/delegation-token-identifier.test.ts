import fc from 'fast-check';
import { TEXT_DEFAULT_MAX_LEN } from './data-input.js';
import { DataOutput } from './data-output.js';
import {
  DelegationTokenIdentifier,
  type DelegationTokenIdentifierFields,
} from './delegation-token-identifier.js';
import { WireFormatError } from './wire-format-error.js';
import { expectError } from '@fastpath/test-support';

const FIELDS: DelegationTokenIdentifierFields = {
  owner: 'bjørn',
  renewer: 'yarn',
  realUser: '',
  issueDate: 1_700_000_000_000,
  maxDate: 1_700_604_800_000,
  sequenceNumber: 1000,
  masterKeyId: -113,
};

// Written out by hand from the layout (spec §3.3) and the VLong rules:
const GOLDEN_HEX = [
  '00', // version 0
  '06 62 6A C3 B8 72 6E', // owner "bjørn": 6 UTF-8 bytes (ø = C3 B8)
  '04 79 61 72 6E', // renewer "yarn"
  '00', // realUser ""
  '8A 01 8B CF E5 68 00', // issueDate 1700000000000 = 0x018BCFE56800, 6 bytes → 8A
  '8A 01 8B F3 F1 EC 00', // maxDate 1700604800000 = 0x018BF3F1EC00
  '8E 03 E8', // sequenceNumber 1000 = 0x03E8, 2 bytes → 8E
  '87 70', // masterKeyId -113: one's complement 112 = 0x70, negative 1 byte → 87
].join(' ');
const GOLDEN = Buffer.from(GOLDEN_HEX.replace(/ /g, ''), 'hex');

const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
const fieldsArb: fc.Arbitrary<DelegationTokenIdentifierFields> = fc.record({
  owner: fc.string({ unit: 'binary', maxLength: 40 }),
  renewer: fc.string({ unit: 'binary', maxLength: 40 }),
  realUser: fc.string({ unit: 'binary', maxLength: 40 }),
  issueDate: fc.maxSafeInteger().map((n) => n * (n % 2 === 0 ? 1 : -1)),
  maxDate: fc.oneof(fc.maxSafeInteger(), fc.integer({ min: 0, max: 4_102_444_800_000 })),
  sequenceNumber: int32,
  masterKeyId: int32,
});

const wireError = (fn: () => unknown): WireFormatError =>
  expectError(fn, WireFormatError, { code: 'ERR_WIRE_FORMAT', retriable: false });

describe('DelegationTokenIdentifier bytes', () => {
  it('matches the hand-computed golden serialisation', () => {
    const id = new DelegationTokenIdentifier('kms-dt', FIELDS);
    expect(id.bytes.toString('hex')).toBe(GOLDEN.toString('hex'));
  });

  it('decodes the golden bytes to the same fields', () => {
    const id = DelegationTokenIdentifier.decode('kms-dt', GOLDEN);
    expect(id.toFields()).toEqual(FIELDS);
    expect(id.kind).toBe('kms-dt');
    expect(id.bytes.equals(GOLDEN)).toBe(true);
  });

  it('writes a minimal identifier with empty strings and zeros', () => {
    const id = new DelegationTokenIdentifier('', {
      owner: '',
      renewer: '',
      realUser: '',
      issueDate: 0,
      maxDate: 0,
      sequenceNumber: 0,
      masterKeyId: 0,
    });
    expect(id.bytes.toString('hex')).toBe('0000000000000000'); // version, 3 empty Texts, 4 zero numbers
    expect(DelegationTokenIdentifier.decode('', id.bytes).toFields()).toEqual(id.toFields());
  });

  it('round-trips arbitrary unicode strings (including empty) and numbers (behaviour 11)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 12 }), fieldsArb, (kind, fields) => {
        const id = new DelegationTokenIdentifier(kind, fields);
        const back = DelegationTokenIdentifier.decode(kind, id.bytes);
        expect(back.toFields()).toEqual(fields);
        expect(back.bytes.equals(id.bytes)).toBe(true);
        expect(back.key).toBe(id.key);
        expect(back.equals(id)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('accepts a non-minimal VLong as Hadoop does and keeps canonical bytes', () => {
    // issueDate 5 written with a needless length byte (8F 05 instead of 05).
    const loose = Buffer.from('00 00 00 00 8F05 00 00 00'.replace(/ /g, ''), 'hex');
    const id = DelegationTokenIdentifier.decode('k', loose);
    expect(id.issueDate).toBe(5);
    expect(id.bytes.toString('hex')).toBe('0000000005000000');
  });
});

describe('DelegationTokenIdentifier limits (behaviour 11)', () => {
  const field = (n: number): string => 'a'.repeat(n);

  it.each(['owner', 'renewer', 'realUser'] as const)('refuses a %s of DEFAULT_MAX_LEN + 1 bytes', (name) => {
    const err = wireError(
      () => new DelegationTokenIdentifier('kms-dt', { ...FIELDS, [name]: field(TEXT_DEFAULT_MAX_LEN + 1) }),
    );
    expect(err.message).toBe(`${name} is too long to be serialized!`);
    expect(err.code).toBe('ERR_WIRE_FORMAT');
  });

  it('refuses exactly DEFAULT_MAX_LEN bytes, which no Hadoop reader accepts', () => {
    wireError(
      () => new DelegationTokenIdentifier('kms-dt', { ...FIELDS, owner: field(TEXT_DEFAULT_MAX_LEN) }),
    );
    // And a Hadoop writer's bytes with such a field are refused on read.
    const bytes = new DataOutput()
      .writeByte(0)
      .writeVInt(TEXT_DEFAULT_MAX_LEN)
      .writeRaw(Buffer.alloc(TEXT_DEFAULT_MAX_LEN, 0x61))
      .writeText('')
      .writeText('')
      .writeVLong(0)
      .writeVLong(0)
      .writeVInt(0)
      .writeVInt(0)
      .toBuffer();
    expect(wireError(() => DelegationTokenIdentifier.decode('kms-dt', bytes)).message).toBe(
      `text length ${TEXT_DEFAULT_MAX_LEN} is not below the maximum ${TEXT_DEFAULT_MAX_LEN}`,
    );
  });

  it('round-trips a field one byte below the limit', () => {
    const id = new DelegationTokenIdentifier('kms-dt', {
      ...FIELDS,
      realUser: field(TEXT_DEFAULT_MAX_LEN - 1),
    });
    expect(DelegationTokenIdentifier.decode('kms-dt', id.bytes).realUser).toHaveLength(
      TEXT_DEFAULT_MAX_LEN - 1,
    );
  });

  it('counts UTF-8 bytes, not characters', () => {
    const twoByteChars = 'é'.repeat(TEXT_DEFAULT_MAX_LEN / 2); // 1 MiB of UTF-8 in half as many chars
    expect(
      wireError(() => new DelegationTokenIdentifier('kms-dt', { ...FIELDS, renewer: twoByteChars })).message,
    ).toBe('renewer is too long to be serialized!');
  });

  it.each<[string, Partial<DelegationTokenIdentifierFields>]>([
    ['sequenceNumber above int range', { sequenceNumber: 2 ** 31 }],
    ['sequenceNumber below int range', { sequenceNumber: -(2 ** 31) - 1 }],
    ['fractional masterKeyId', { masterKeyId: 1.5 }],
    ['masterKeyId above int range', { masterKeyId: 2 ** 31 }],
    ['unsafe issueDate', { issueDate: 2 ** 53 }],
    ['NaN maxDate', { maxDate: Number.NaN }],
    ['lone surrogate in owner', { owner: 'x\uD83D' }],
    ['non-string renewer', { renewer: 7 as unknown as string }],
  ])('refuses a %s', (_label, change) => {
    wireError(() => new DelegationTokenIdentifier('kms-dt', { ...FIELDS, ...change }));
  });

  it('keeps the int range edges', () => {
    const id = new DelegationTokenIdentifier('kms-dt', {
      ...FIELDS,
      sequenceNumber: 2 ** 31 - 1,
      masterKeyId: -(2 ** 31),
      issueDate: Number.MAX_SAFE_INTEGER,
      maxDate: Number.MIN_SAFE_INTEGER,
    });
    expect(DelegationTokenIdentifier.decode('kms-dt', id.bytes).toFields()).toEqual(id.toFields());
  });
});

describe('DelegationTokenIdentifier decoding errors', () => {
  it('refuses another version', () => {
    const v1 = Buffer.from(GOLDEN);
    v1[0] = 1;
    expect(wireError(() => DelegationTokenIdentifier.decode('kms-dt', v1)).message).toBe(
      'Unknown version of delegation token 1',
    );
    v1[0] = 0xff;
    expect(wireError(() => DelegationTokenIdentifier.decode('kms-dt', v1)).message).toBe(
      'Unknown version of delegation token -1',
    );
  });

  it('refuses trailing bytes', () => {
    const err = wireError(() =>
      DelegationTokenIdentifier.decode('kms-dt', Buffer.concat([GOLDEN, Buffer.of(0)])),
    );
    expect(err.message).toBe(`1 unexpected trailing bytes at offset ${GOLDEN.length}`);
  });

  it('refuses every truncation', () => {
    for (let n = 0; n < GOLDEN.length; n++) {
      wireError(() => DelegationTokenIdentifier.decode('kms-dt', GOLDEN.subarray(0, n)));
    }
  });

  it('refuses a sequence number or key id that does not fit an int', () => {
    const head = new DataOutput()
      .writeByte(0)
      .writeText('')
      .writeText('')
      .writeText('')
      .writeVLong(0)
      .writeVLong(0);
    const seq = Buffer.concat([
      head.toBuffer(),
      new DataOutput()
        .writeVLong(2 ** 31)
        .writeVInt(0)
        .toBuffer(),
    ]);
    expect(wireError(() => DelegationTokenIdentifier.decode('k', seq)).message).toMatch(
      /value too long to fit in integer/,
    );
    const key = Buffer.concat([
      head.toBuffer(),
      new DataOutput()
        .writeVInt(0)
        .writeVLong(-(2 ** 31) - 1)
        .toBuffer(),
    ]);
    wireError(() => DelegationTokenIdentifier.decode('k', key));
  });

  it('reads dates beyond 2^53 exactly (Hadoop writes any Java long)', () => {
    const bytes = new DataOutput()
      .writeByte(0)
      .writeText('')
      .writeText('')
      .writeText('')
      .writeVLong(1n << 53n)
      .writeVLong(0)
      .writeVInt(0)
      .writeVInt(0)
      .toBuffer();
    const id = DelegationTokenIdentifier.decode('k', bytes);
    expect(id.issueDateLong).toBe(1n << 53n);
    expect(id.toFields().issueDate).toBe(1n << 53n);
    expect(id.bytes.equals(bytes)).toBe(true);
  });
});

describe('DelegationTokenIdentifier identity and immutability', () => {
  it('has equal keys exactly when kind and all fields are equal', () => {
    fc.assert(
      fc.property(fieldsArb, fieldsArb, fc.boolean(), (a, b, sameKind) => {
        const x = new DelegationTokenIdentifier('kms-dt', a);
        const y = new DelegationTokenIdentifier(sameKind ? 'kms-dt' : 'HDFS_DELEGATION_TOKEN', b);
        const equal = sameKind && JSON.stringify(a) === JSON.stringify(b);
        expect(x.key === y.key).toBe(equal);
        expect(x.equals(y)).toBe(equal);
      }),
    );
  });

  it('tells fields apart even when their concatenation is the same', () => {
    const a = new DelegationTokenIdentifier('k', { ...FIELDS, owner: 'ab', renewer: 'c' });
    const b = new DelegationTokenIdentifier('k', { ...FIELDS, owner: 'a', renewer: 'bc' });
    const c = new DelegationTokenIdentifier('k0', { ...FIELDS });
    const d = new DelegationTokenIdentifier('k', { ...FIELDS });
    expect(a.key).not.toBe(b.key);
    expect(c.key).not.toBe(d.key);
  });

  it('with() returns a changed copy and leaves the original alone', () => {
    const id = new DelegationTokenIdentifier('kms-dt', FIELDS);
    const next = id.with({ sequenceNumber: 1001, masterKeyId: 8 });
    expect(next.toFields()).toEqual({ ...FIELDS, sequenceNumber: 1001, masterKeyId: 8 });
    expect(next.kind).toBe('kms-dt');
    expect(id.toFields()).toEqual(FIELDS);
    expect(id.bytes.equals(GOLDEN)).toBe(true);
    expect(next.key).not.toBe(id.key);
    wireError(() => id.with({ sequenceNumber: 2 ** 31 }));
  });

  it('cannot be changed after construction', () => {
    const id = new DelegationTokenIdentifier('kms-dt', FIELDS);
    expect(Object.isFrozen(id)).toBe(true);
    expect(Reflect.set(id, 'sequenceNumber', 5)).toBe(false);
    expect(id.sequenceNumber).toBe(1000);
  });

  it('prints the fields in Hadoop order', () => {
    expect(String(new DelegationTokenIdentifier('kms-dt', FIELDS))).toBe(
      'kms-dt owner=bjørn, renewer=yarn, realUser=, issueDate=1700000000000, maxDate=1700604800000, ' +
        'sequenceNumber=1000, masterKeyId=-113',
    );
  });
});
