// The hand-written GetFileStatusResponse decoder against the generated codecs (the reference):
// random valid answers, block locations, ACLs and metadata included, encoded by protobufjs decode
// to the same fields with both; truncated and corrupted bytes give a typed protocol error where
// the reference does not decode them, never a crash.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import Long from 'long';
import { garbageOrCorrupted, outcome } from '../../../test/support/wire-fuzz.js';
import { OzoneProtocolError } from '../../ozone-errors.js';
import {
  decodeGetFileStatusResponse,
  fileStatusFields,
  type FileStatusFields,
} from './decode-file-status.js';
import { om, type hadoop } from './wire.js';

const uint64Safe = fc.maxSafeNat().map((v) => Long.fromNumber(v, true));
const int64 = fc.maxSafeNat().map((v) => Long.fromNumber(v, false));

const keyLocation = fc.record({
  blockID: fc.record({ containerBlockID: fc.record({ containerID: int64, localID: int64 }) }),
  offset: uint64Safe,
  length: uint64Safe,
  createVersion: uint64Safe,
});

const keyInfo = fc.record(
  {
    volumeName: fc.string({ maxLength: 12 }),
    bucketName: fc.string({ maxLength: 12 }),
    keyName: fc.string({ unit: 'grapheme', maxLength: 40 }),
    dataSize: uint64Safe,
    type: fc.integer({ min: 1, max: 4 }),
    factor: fc.constantFrom(0, 1, 3),
    keyLocationList: fc.array(
      fc.record({ version: uint64Safe, keyLocations: fc.array(keyLocation, { maxLength: 3 }) }),
      { maxLength: 2 },
    ),
    creationTime: uint64Safe,
    modificationTime: uint64Safe,
    latestVersion: uint64Safe,
    metadata: fc.array(fc.record({ key: fc.string({ maxLength: 8 }), value: fc.string({ maxLength: 8 }) }), {
      maxLength: 3,
    }),
    acls: fc.array(
      fc.record({
        type: fc.integer({ min: 1, max: 5 }),
        name: fc.string({ maxLength: 8 }),
        rights: fc.uint8Array({ maxLength: 4 }),
        aclScope: fc.constantFrom(0, 1),
      }),
      { maxLength: 3 },
    ),
    objectID: uint64Safe,
    updateID: uint64Safe,
    parentID: uint64Safe,
    ecReplicationConfig: fc.record({
      data: fc.integer({ min: 0, max: 10 }),
      parity: fc.integer({ min: 0, max: 4 }),
      codec: fc.constantFrom('rs', 'xor'),
      ecChunkSize: fc.integer({ min: 1, max: 1 << 22 }),
    }),
    isFile: fc.boolean(),
    ownerName: fc.string({ maxLength: 16 }),
  },
  {
    requiredKeys: [
      'volumeName',
      'bucketName',
      'keyName',
      'dataSize',
      'type',
      'creationTime',
      'modificationTime',
    ],
  },
);

const answer = fc.record({
  status: fc.record({ keyInfo, blockSize: uint64Safe, isDirectory: fc.boolean() }, { requiredKeys: [] }),
});

const encode = (m: hadoop.ozone.IGetFileStatusResponse): Buffer =>
  Buffer.from(om.GetFileStatusResponse.encode(m).finish());

const reference = (raw: Buffer): FileStatusFields =>
  fileStatusFields(om.GetFileStatusResponse.decode(raw).status);

describe('decodeGetFileStatusResponse', () => {
  it('decodes random valid answers as the generated codecs do', () => {
    fc.assert(
      fc.property(answer, (m) => {
        const raw = encode(m);
        expect(decodeGetFileStatusResponse(raw, 'om:9862')).toEqual(reference(raw));
      }),
      { numRuns: 500 },
    );
  });

  it('fails on a truncated answer with a typed error where it does not decode it as the generated codecs do', () => {
    fc.assert(
      fc.property(answer, fc.double({ min: 0, max: 1, noNaN: true }), (m, at) => {
        const full = encode(m);
        const cut = full.subarray(0, Math.floor(full.length * at));
        const ref = outcome(() => reference(cut));
        const ours = outcome(() => decodeGetFileStatusResponse(cut, 'om:9862'));
        if (ours.ok) expect(ours).toEqual(ref);
        else {
          expect(ours.error).toBeInstanceOf(OzoneProtocolError);
          expect((ours.error as Error).message).toMatch(/om:9862.*undecodable GetFileStatusResponse/);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('gives random and corrupted bytes a typed protocol error, never a crash', () => {
    fc.assert(
      fc.property(garbageOrCorrupted(answer, encode), (raw) => {
        const ours = outcome(() => decodeGetFileStatusResponse(raw, 'om:9862'));
        if (!ours.ok) expect(ours.error).toBeInstanceOf(OzoneProtocolError);
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses an answer without its status, or a key without a required field, naming what is missing', () => {
    expect(() => decodeGetFileStatusResponse(Buffer.alloc(0), 'om:9862')).toThrow(
      /om:9862.*GetFileStatusResponse lacks its required status/,
    );
    // status (1) { keyInfo (2) { keyName (3): 'k' } }: the other required fields are named.
    const raw = Buffer.from([0x0a, 0x05, 0x12, 0x03, 0x1a, 0x01, 0x6b]);
    expect(() => reference(raw)).toThrow(/missing required/);
    expect(() => decodeGetFileStatusResponse(raw, 'om:9862')).toThrow(
      /KeyInfo lacks its required volumeName, bucketName, dataSize, type, creationTime, modificationTime/,
    );
  });

  it('keeps what a status shows of an EC key with its block locations and ACLs', () => {
    const raw = encode({
      status: {
        keyInfo: {
          volumeName: 'vol',
          bucketName: 'b',
          keyName: 'dir/f',
          dataSize: Long.fromNumber(5 << 20, true),
          type: 4,
          factor: 1,
          creationTime: Long.fromNumber(1_700_000_000_000, true),
          modificationTime: Long.fromNumber(1_700_000_000_123, true),
          keyLocationList: [
            {
              version: Long.UZERO,
              keyLocations: [
                {
                  blockID: {
                    containerBlockID: { containerID: Long.fromNumber(7), localID: Long.fromNumber(9) },
                  },
                  offset: Long.UZERO,
                  length: Long.fromNumber(5 << 20, true),
                },
              ],
            },
          ],
          acls: [{ type: 1, name: 'alice', rights: new Uint8Array([0xff]), aclScope: 0 }],
          ecReplicationConfig: { data: 6, parity: 3, codec: 'rs', ecChunkSize: 1 << 20 },
          ownerName: 'alice',
        },
        blockSize: Long.fromNumber(256 << 20, true),
        isDirectory: false,
      },
    });
    expect(decodeGetFileStatusResponse(raw, 'om:9862')).toEqual({
      hasKeyInfo: true,
      keyName: 'dir/f',
      dataSize: 5 << 20,
      creationTime: 1_700_000_000_000,
      modificationTime: 1_700_000_000_123,
      type: 4,
      factor: 1,
      ownerName: 'alice',
      hasEc: true,
      ecData: 6,
      ecParity: 3,
      blockSize: 256 << 20,
      isDirectory: false,
    });
  });
});
