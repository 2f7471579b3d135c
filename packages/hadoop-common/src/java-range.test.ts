import { Redacted } from '@fastpath/core';
import { DataOutput } from './data-output.js';
import { DelegationKey } from './delegation-key.js';
import { DelegationTokenIdentifier } from './delegation-token-identifier.js';
import { decodeTokenNode, encodeTokenNode } from './token-node.js';
import { Token } from './token.js';
import { WireFormatError } from './wire-format-error.js';

// Hadoop writes dates as Java longs and sequence numbers and key ids as Java ints, so every value
// of those ranges is a legal identifier (a maxDate of Long.MAX_VALUE is common for tokens that
// never expire). Each vector is written field by field with the raw codec, decoded, and encoded
// again: the bytes must be identical and the exact values must come back.

const LONG_VECTORS: readonly bigint[] = [
  0n,
  -1n,
  1n << 31n,
  -(1n << 31n),
  1n << 53n,
  -(1n << 53n),
  (1n << 53n) + 1n,
  (1n << 63n) - 1n,
  -(1n << 63n),
];
const INT_VECTORS: readonly number[] = [0, -1, 2 ** 31 - 1, -(2 ** 31), 1_000_000];

function identifierBytes(
  issueDate: bigint,
  maxDate: bigint,
  sequenceNumber: number,
  masterKeyId: number,
): Buffer {
  return new DataOutput()
    .writeByte(0)
    .writeText('alice')
    .writeText('yarn')
    .writeText('')
    .writeVLong(issueDate)
    .writeVLong(maxDate)
    .writeVLong(sequenceNumber)
    .writeVLong(masterKeyId)
    .toBuffer();
}

describe('identifiers over the full Java long and int ranges', () => {
  it.each(LONG_VECTORS.map((v) => [v]))('decodes and re-encodes dates of %s byte-identically', (date) => {
    const bytes = identifierBytes(date, date, 7, 3);
    const id = DelegationTokenIdentifier.decode('kms-dt', bytes);
    expect(id.issueDateLong).toBe(date);
    expect(id.maxDateLong).toBe(date);
    expect(id.issueDate).toBe(Number(date));
    expect(id.bytes.equals(bytes)).toBe(true);
    const rebuilt = new DelegationTokenIdentifier('kms-dt', id.toFields());
    expect(rebuilt.bytes.equals(bytes)).toBe(true);
    expect(rebuilt.equals(id)).toBe(true);
    expect(id.with({ renewer: 'oozie' }).with({ renewer: 'yarn' }).bytes.equals(bytes)).toBe(true);
    expect(id.toString()).toContain(`maxDate=${date}`);
  });

  it.each(INT_VECTORS.map((v) => [v]))('decodes and re-encodes sequence number and key id %s', (n) => {
    const bytes = identifierBytes(0n, (1n << 63n) - 1n, n, n);
    const id = DelegationTokenIdentifier.decode('kms-dt', bytes);
    expect(id.sequenceNumber).toBe(n);
    expect(id.masterKeyId).toBe(n);
    expect(new DelegationTokenIdentifier('kms-dt', id.toFields()).bytes.equals(bytes)).toBe(true);
  });

  it.each([[2 ** 31], [-(2 ** 31) - 1]])('refuses a sequence number of %s, as Hadoop does', (n) => {
    const bytes = identifierBytes(0n, 0n, n, 0);
    expect(() => DelegationTokenIdentifier.decode('kms-dt', bytes)).toThrow(
      new WireFormatError(`value too long to fit in integer: ${n}`),
    );
  });

  it('takes bigint dates from callers and refuses what a Java long cannot hold', () => {
    const fields = {
      owner: 'alice',
      renewer: '',
      realUser: '',
      issueDate: -(1n << 63n),
      maxDate: (1n << 63n) - 1n,
      sequenceNumber: 1,
      masterKeyId: 1,
    };
    const id = new DelegationTokenIdentifier('kms-dt', fields);
    expect(id.toFields()).toEqual(fields);
    expect(id.maxDate).toBeGreaterThan(Date.now());
    expect(id.issueDate).toBeLessThan(0);
    expect(() => new DelegationTokenIdentifier('kms-dt', { ...fields, maxDate: 1n << 63n })).toThrow(
      WireFormatError,
    );
    expect(
      () => new DelegationTokenIdentifier('kms-dt', { ...fields, issueDate: -(1n << 63n) - 1n }),
    ).toThrow(WireFormatError);
    // A number beyond 2^53 is already rounded: refused rather than written as a value never given.
    expect(() => new DelegationTokenIdentifier('kms-dt', { ...fields, maxDate: 2 ** 63 })).toThrow(
      WireFormatError,
    );
    // Safe values come back as numbers, so callers that only use clock times never see a bigint.
    expect(id.with({ maxDate: 5n }).toFields().maxDate).toBe(5);
  });

  it('carries every vector through a Token URL string', () => {
    for (const date of LONG_VECTORS) {
      const bytes = identifierBytes(date, -date - 1n, -(2 ** 31), 2 ** 31 - 1);
      const url = new Token({
        identifier: bytes,
        password: new Redacted(Buffer.alloc(20, 1)),
        kind: 'kms-dt',
        service: '',
      }).toUrlString();
      const token = Token.fromUrlString(url);
      const id = DelegationTokenIdentifier.decode(token.kind, token.identifier);
      expect([id.issueDateLong, id.maxDateLong]).toEqual([date, -date - 1n]);
      expect(token.toUrlString()).toBe(url);
      expect(token.toString()).toContain(`issueDate=${date}`);
    }
  });
});

describe('master keys and token nodes over the full Java long range', () => {
  it.each(LONG_VECTORS.map((v) => [v]))('keeps an expiry date of %s', (date) => {
    const bytes = new DataOutput()
      .writeVInt(-(2 ** 31))
      .writeVLong(date)
      .writeVIntBytes(Buffer.alloc(8, 9))
      .toBuffer();
    const key = DelegationKey.decode(bytes);
    expect(key.expiryDateLong).toBe(date);
    expect(key.expiryDate).toBe(Number(date));
    expect(key.encode().equals(bytes)).toBe(true);
    expect(key.withExpiry(date).equals(key)).toBe(true);
  });

  it.each(LONG_VECTORS.map((v) => [v]))('keeps a renew date of %s', (date) => {
    const identifier = identifierBytes(0n, date, 1, 1);
    const node = new DataOutput()
      .writeRaw(identifier)
      .writeInt64(date)
      .writeInt32(2)
      .writeRaw(Buffer.from([1, 2]))
      .toBuffer();
    const decoded = decodeTokenNode('kms-dt', node);
    expect(decoded.renewDateLong).toBe(date);
    expect(decoded.renewDate).toBe(Number(date));
    expect(decoded.identifier.maxDateLong).toBe(date);
    expect(
      encodeTokenNode({
        identifier: decoded.identifier.bytes,
        renewDate: decoded.renewDateLong,
        password: decoded.password,
      }).equals(node),
    ).toBe(true);
  });
});
