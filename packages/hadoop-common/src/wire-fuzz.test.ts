import { Redacted } from '@fastpath/core';
import fc from 'fast-check';
import { Credentials } from './credentials.js';
import { DelegationKey } from './delegation-key.js';
import { DelegationTokenIdentifier } from './delegation-token-identifier.js';
import { decodeSharedCount, encodeSharedCount } from './shared-count.js';
import { decodeTokenNode, encodeTokenNode } from './token-node.js';
import { Token } from './token.js';
import { WireFormatError } from './wire-format-error.js';

// Every decoder, fed anything, either returns a value that survives its own round trip or throws a
// WireFormatError: no RangeError, TypeError or other crash escapes.

interface Decoder {
  name: string;
  /** Decodes and, on success, re-encodes and decodes again to check the value is self-consistent. */
  run: (bytes: Uint8Array) => void;
  valid: fc.Arbitrary<Buffer>;
}

const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
const text = fc.string({ unit: 'binary', maxLength: 12 });
const identifierArb = fc
  .record({
    owner: text,
    renewer: text,
    realUser: text,
    issueDate: fc.maxSafeInteger(),
    maxDate: fc.maxSafeInteger(),
    sequenceNumber: int32,
    masterKeyId: int32,
  })
  .map((fields) => new DelegationTokenIdentifier('kms-dt', fields));

const decoders: Decoder[] = [
  {
    name: 'DelegationTokenIdentifier.decode',
    run(bytes) {
      const id = DelegationTokenIdentifier.decode('kms-dt', bytes);
      expect(DelegationTokenIdentifier.decode('kms-dt', id.bytes).key).toBe(id.key);
    },
    valid: identifierArb.map((id) => id.bytes),
  },
  {
    name: 'Token.decode',
    run(bytes) {
      const token = Token.decode(bytes);
      expect(Token.decode(token.encode()).encode().equals(token.encode())).toBe(true);
    },
    valid: fc
      .record({
        identifier: fc.uint8Array({ maxLength: 40 }),
        password: fc.uint8Array({ maxLength: 24 }),
        kind: text,
        service: text,
      })
      .map((f) => new Token({ ...f, password: new Redacted(Buffer.from(f.password)) }).encode()),
  },
  ...(['writable', 'protobuf'] as const).map((format): Decoder => ({
    name: `Credentials.decode (${format})`,
    run(bytes) {
      const credentials = Credentials.decode(bytes);
      expect(Credentials.decode(credentials.encode(format)).encode(format)).toEqual(
        credentials.encode(format),
      );
    },
    valid: fc
      .array(
        fc.record({
          alias: text,
          identifier: fc.uint8Array({ maxLength: 20 }),
          password: fc.uint8Array({ maxLength: 12 }),
          kind: text,
          service: text,
        }),
        { maxLength: 3 },
      )
      .map((entries) =>
        new Credentials({
          tokens: new Map(
            entries.map((e) => [
              e.alias,
              new Token({ ...e, password: new Redacted(Buffer.from(e.password)) }),
            ]),
          ),
        }).encode(format),
      ),
  })),
  {
    name: 'DelegationKey.decode',
    run(bytes) {
      const key = DelegationKey.decode(bytes);
      expect(DelegationKey.decode(key.encode()).equals(key)).toBe(true);
    },
    valid: fc
      .record({
        keyId: int32,
        expiryDate: fc.maxSafeInteger(),
        key: fc.option(fc.uint8Array({ maxLength: 24 }), { nil: null }),
      })
      .map((f) => new DelegationKey({ ...f, key: f.key === null ? null : Buffer.from(f.key) }).encode()),
  },
  {
    name: 'decodeTokenNode',
    run(bytes) {
      const node = decodeTokenNode('kms-dt', bytes);
      const again = decodeTokenNode(
        'kms-dt',
        encodeTokenNode({
          identifier: node.identifier.bytes,
          renewDate: node.renewDate,
          password: node.password,
        }),
      );
      expect(again.identifier.key).toBe(node.identifier.key);
      expect(again.renewDate).toBe(node.renewDate);
    },
    valid: fc
      .tuple(identifierArb, fc.maxSafeInteger(), fc.uint8Array({ maxLength: 24 }))
      .map(([id, renewDate, password]) =>
        encodeTokenNode({ identifier: id.bytes, renewDate, password: Buffer.from(password) }),
      ),
  },
  {
    name: 'decodeSharedCount',
    run(bytes) {
      expect(decodeSharedCount(encodeSharedCount(decodeSharedCount(bytes)))).toBe(decodeSharedCount(bytes));
    },
    valid: int32.map(encodeSharedCount),
  },
];

function expectValueOrWireFormatError(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof WireFormatError)) throw err;
    expect(err.code).toBe('ERR_WIRE_FORMAT');
  }
}

/** A valid encoding with a few bytes flipped, inserted, deleted, or cut off. */
function mutated(valid: fc.Arbitrary<Buffer>): fc.Arbitrary<Buffer> {
  const edit = fc.oneof(
    fc.record({ op: fc.constant('flip' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
    fc.record({ op: fc.constant('insert' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
    fc.record({ op: fc.constant('delete' as const), at: fc.nat(), value: fc.constant(0) }),
    fc.record({ op: fc.constant('cut' as const), at: fc.nat(), value: fc.constant(0) }),
  );
  return fc.tuple(valid, fc.array(edit, { minLength: 1, maxLength: 4 })).map(([bytes, edits]) => {
    let out = Buffer.from(bytes);
    for (const { op, at, value } of edits) {
      const i = out.length === 0 ? 0 : at % out.length;
      if (op === 'flip' && out.length > 0) out[i] = value;
      if (op === 'insert') out = Buffer.concat([out.subarray(0, i), Buffer.of(value), out.subarray(i)]);
      if (op === 'delete') out = Buffer.concat([out.subarray(0, i), out.subarray(i + 1)]);
      if (op === 'cut') out = out.subarray(0, i);
    }
    return out;
  });
}

describe.each(decoders)('$name', ({ run, valid }) => {
  it('decodes arbitrary bytes to a value or a WireFormatError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 120 }), (bytes) =>
        expectValueOrWireFormatError(() => run(bytes)),
      ),
      { numRuns: 3000 },
    );
  });

  it('decodes mutated valid encodings to a value or a WireFormatError', () => {
    fc.assert(
      fc.property(mutated(valid), (bytes) => expectValueOrWireFormatError(() => run(bytes))),
      { numRuns: 3000 },
    );
  });

  it('decodes valid encodings, and refuses each of their truncations', () => {
    fc.assert(
      fc.property(valid, (bytes) => {
        run(bytes);
        for (let n = 0; n < bytes.length; n++) {
          expect(() => run(bytes.subarray(0, n))).toThrow(WireFormatError);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('Token.fromUrlString', () => {
  const base64Char = fc.constantFrom(
    ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_='.split(''),
  );

  it('turns arbitrary strings into a token or a WireFormatError', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (s) =>
        expectValueOrWireFormatError(() => Token.fromUrlString(s)),
      ),
      { numRuns: 3000 },
    );
  });

  it('turns arbitrary base64-alphabet strings into a token or a WireFormatError', () => {
    fc.assert(
      fc.property(fc.string({ unit: base64Char, maxLength: 80 }), (s) =>
        expectValueOrWireFormatError(() => Token.fromUrlString(s)),
      ),
      { numRuns: 3000 },
    );
  });

  it('handles mutated valid URL strings', () => {
    const urls = mutated(decoders[1]!.valid).map((b) => b.toString('base64url'));
    fc.assert(
      fc.property(urls, (s) => expectValueOrWireFormatError(() => Token.fromUrlString(s))),
      { numRuns: 2000 },
    );
  });
});
