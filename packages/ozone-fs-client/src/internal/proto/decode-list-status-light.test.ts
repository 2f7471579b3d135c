// The hand-written ListStatusLightResponse decoder against the generated codecs (the reference):
// random valid pages encoded by protobufjs decode to the same entries with both; truncated and
// corrupted bytes give a typed protocol error, never a crash. And takeField, which hands the
// decoder its bytes out of the OMResponse: the rest decodes as the whole did, less that field.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { garbageOrCorrupted, outcome } from '../../../test/support/wire-fuzz.js';
import Long from 'long';
import { OzoneProtocolError } from '../../ozone-errors.js';
import { decodeListStatusLight, type LightStatus } from './decode-list-status-light.js';

/** Each status as decoded (the decoder reuses one object for every entry). */
const copy = (s: Readonly<LightStatus>): LightStatus => ({ ...s });
import { takeField } from './proto-cursor.js';
import { om, toNumber, type hadoop } from './wire.js';

const uint64Safe = fc.maxSafeNat().map((v) => Long.fromNumber(v, true));

const basicKeyInfo = fc.record(
  {
    keyName: fc.string({ unit: 'grapheme', maxLength: 40 }),
    dataSize: uint64Safe,
    creationTime: uint64Safe,
    modificationTime: uint64Safe,
    type: fc.integer({ min: 1, max: 4 }),
    factor: fc.constantFrom(1, 3),
    ecReplicationConfig: fc.record({
      data: fc.integer({ min: 1, max: 10 }),
      parity: fc.integer({ min: 1, max: 4 }),
      codec: fc.constantFrom('rs', 'xor'),
      ecChunkSize: fc.integer({ min: 1, max: 1 << 22 }),
    }),
    eTag: fc.string({ maxLength: 32 }),
    ownerName: fc.string({ maxLength: 16 }),
    isEncrypted: fc.boolean(),
    isFile: fc.boolean(),
  },
  { requiredKeys: [] },
);

const status = fc.record(
  {
    volumeName: fc.string({ maxLength: 12 }),
    bucketName: fc.string({ maxLength: 12 }),
    basicKeyInfo,
    blockSize: uint64Safe,
    isDirectory: fc.boolean(),
  },
  { requiredKeys: [] },
);

const page = fc.record({ statuses: fc.array(status, { maxLength: 20 }) });

const encode = (m: hadoop.ozone.IListStatusLightResponse): Buffer =>
  Buffer.from(om.ListStatusLightResponse.encode(m).finish());

/** The generated decoder's answer in the hand-written decoder's shape. */
function reference(raw: Buffer): LightStatus[] {
  return om.ListStatusLightResponse.decode(raw).statuses.map((s) => {
    const k = s.basicKeyInfo ?? om.BasicKeyInfo.create();
    return {
      // Fields not sent read as their defaults (protobufjs keeps them on the prototype).
      keyName: k.keyName as string,
      dataSize: toNumber(k.dataSize),
      creationTime: toNumber(k.creationTime),
      modificationTime: toNumber(k.modificationTime),
      type: k.type as number,
      isDirectory: s.isDirectory as boolean,
    };
  });
}

describe('decodeListStatusLight', () => {
  it('decodes random valid pages as the generated codecs do', () => {
    fc.assert(
      fc.property(page, (m) => {
        const raw = encode(m);
        expect(decodeListStatusLight(raw, 'om:9862', copy)).toEqual(reference(raw));
      }),
      { numRuns: 500 },
    );
  });

  it('fails on a truncated page with a typed error where it does not decode it as the generated codecs do', () => {
    fc.assert(
      fc.property(page, fc.double({ min: 0, max: 1, noNaN: true }), (m, at) => {
        const full = encode(m);
        const cut = full.subarray(0, Math.floor(full.length * at));
        const ref = outcome(() => reference(cut));
        const ours = outcome(() => decodeListStatusLight(cut, 'om:9862', copy));
        if (ours.ok) expect(ours).toEqual(ref);
        else {
          expect(ours.error).toBeInstanceOf(OzoneProtocolError);
          expect((ours.error as Error).message).toMatch(/^.*om:9862.*undecodable ListStatusLightResponse/);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('gives random and corrupted bytes a typed protocol error, never a crash', () => {
    fc.assert(
      fc.property(garbageOrCorrupted(page, encode), (raw) => {
        const ours = outcome(() => decodeListStatusLight(raw, 'om:9862', copy));
        if (!ours.ok) expect(ours.error).toBeInstanceOf(OzoneProtocolError);
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps what a listing needs of a page of 1,000 keys', () => {
    const now = Date.now();
    const raw = encode({
      statuses: Array.from({ length: 1000 }, (_, i) => ({
        volumeName: 'vol',
        bucketName: 'b',
        basicKeyInfo: {
          keyName: `dir/k-${i}`,
          dataSize: Long.fromNumber(i * 4096, true),
          creationTime: Long.fromNumber(now - i, true),
          modificationTime: Long.fromNumber(now, true),
          type: 1,
          factor: 3,
        },
        isDirectory: i % 100 === 0,
      })),
    });
    const decoded = decodeListStatusLight(raw, 'om:9862', copy);
    expect(decoded).toHaveLength(1000);
    expect(decoded[7]).toEqual({
      keyName: 'dir/k-7',
      dataSize: 7 * 4096,
      creationTime: now - 7,
      modificationTime: now,
      type: 1,
      isDirectory: false,
    });
    expect(decoded.filter((s) => s.isDirectory)).toHaveLength(10);
  });
});

describe('takeField', () => {
  const response = (m: hadoop.ozone.IOMResponse): Buffer => Buffer.from(om.OMResponse.encode(m).finish());

  it('hands over a response body and leaves the rest to decode as the whole message did', () => {
    fc.assert(
      fc.property(page, fc.string({ maxLength: 30 }), (body, message) => {
        const raw = response({
          cmdType: om.Type.ListStatusLight,
          status: om.Status.OK,
          success: true,
          message,
          listStatusLightResponse: body,
        });
        const { rest, taken } = takeField(raw, 129);
        expect(taken).toEqual(encode(body));
        // What protobufjs decoded: a message's own properties are the fields it read.
        const { listStatusLightResponse: _body, ...whole } = { ...om.OMResponse.decode(raw) };
        expect({ ...om.OMResponse.decode(rest) }).toEqual(whole);
        expect(rest.length).toBeLessThan(raw.length);
      }),
      { numRuns: 200 },
    );
  });

  it('gives nothing for a response without the field, and merges a field sent twice', () => {
    const plain = response({ cmdType: om.Type.ListStatusLight, status: om.Status.OK });
    expect(takeField(plain, 129)).toEqual({ rest: plain, taken: undefined });
    const a = { statuses: [{ basicKeyInfo: { keyName: 'a' } }] };
    const b = { statuses: [{ basicKeyInfo: { keyName: 'b' } }] };
    const twice = Buffer.concat([
      response({ cmdType: om.Type.ListStatusLight, status: om.Status.OK, listStatusLightResponse: a }),
      response({ listStatusLightResponse: b } as hadoop.ozone.IOMResponse),
    ]);
    const { taken } = takeField(twice, 129);
    expect(decodeListStatusLight(taken!, 'om:9862', copy).map((s) => s.keyName)).toEqual(['a', 'b']);
  });

  it('refuses the field with the wrong wire type', () => {
    // Field 129 as a varint: tag (129 << 3) | 0.
    const raw = Buffer.from([0x88, 0x08, 0x01]);
    expect(() => takeField(raw, 129)).toThrow(/wire type 0, not 2/);
  });
});
