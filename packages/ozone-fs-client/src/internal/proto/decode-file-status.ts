// A hand-written decoder for the OM's GetFileStatusResponse, the answer to the call a file system
// makes most (every stat, exists and open of a path). Through the generated codecs the answer's
// KeyInfo costs a message per block location, pipeline, datanode and ACL and a Long per 64-bit
// field, a fifth of what a getFileStatus allocates, for the eight fields a status shows. This reads
// those fields and skips the rest. The generated codecs stay the reference: a property test
// decodes random answers with both and compares.
import { OzoneProtocolError } from '../../ozone-errors.js';
import type { LightStatus } from './decode-list-status-light.js';
import { BYTES, Cursor, expectWire, Malformed, missing, VARINT } from './proto-cursor.js';
import { toNumber, type hadoop } from './wire.js';

/** What a file status shows of an `OzoneFileStatusProto` (a field not sent has protobuf's default). */
export interface FileStatusFields extends LightStatus {
  /** Whether the status carried a `keyInfo` (the key fields are defaults when not). */
  hasKeyInfo: boolean;
  ownerName: string;
  /** `hdds.ReplicationFactor`'s number. */
  factor: number;
  /** Whether the key has an `ecReplicationConfig`, and its data and parity units (else 0). */
  hasEc: boolean;
  ecData: number;
  ecParity: number;
  blockSize: number;
}

/** protobuf's defaults of `KeyInfo.factor` and `.type`: their enums' first values (ONE, RATIS). */
const DEFAULT_FACTOR = 1;
const DEFAULT_TYPE = 1;

/** `KeyInfo`'s required fields present, one bit each (volumeName … modificationTime). */
const KEY_INFO_REQUIRED: ReadonlyArray<readonly [number, string]> = [
  [1, 'volumeName'],
  [2, 'bucketName'],
  [3, 'keyName'],
  [4, 'dataSize'],
  [5, 'type'],
  [8, 'creationTime'],
  [9, 'modificationTime'],
];
const KEY_INFO_ALL_REQUIRED = KEY_INFO_REQUIRED.reduce((bits, [field]) => bits | (1 << field), 0);

function ecReplicationConfig(c: Cursor, end: number, into: FileStatusFields): void {
  let seen = 0;
  while (c.pos < end) {
    const tag = c.uint32(end);
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 0) throw new Malformed('a field numbered 0');
    if (field >= 1 && field <= 4) seen |= 1 << field;
    if (field === 1) {
      expectWire(field, wire, VARINT, 'ECReplicationConfig');
      into.ecData = c.int32(end);
    } else if (field === 2) {
      expectWire(field, wire, VARINT, 'ECReplicationConfig');
      into.ecParity = c.int32(end);
    } else if (field === 3) {
      expectWire(field, wire, BYTES, 'ECReplicationConfig');
      c.skip(wire, end);
    } else if (field === 4) {
      expectWire(field, wire, VARINT, 'ECReplicationConfig');
      c.skip(wire, end);
    } else c.skip(wire, end);
  }
  if (seen !== 0b11110) missing('ECReplicationConfig', 'data, parity, codec and ecChunkSize');
}

/** Reads one `KeyInfo` into `s`: it replaces an earlier one, as the generated codecs do. */
function keyInfo(c: Cursor, end: number, s: FileStatusFields): void {
  s.hasKeyInfo = true;
  s.keyName = '';
  s.dataSize = 0;
  s.creationTime = 0;
  s.modificationTime = 0;
  s.type = DEFAULT_TYPE;
  s.factor = DEFAULT_FACTOR;
  s.ownerName = '';
  s.hasEc = false;
  s.ecData = 0;
  s.ecParity = 0;
  let seen = 0;
  while (c.pos < end) {
    const tag = c.uint32(end);
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field < 10) seen |= 1 << field;
    switch (field) {
      case 0:
        throw new Malformed('a field numbered 0');
      case 3:
        expectWire(field, wire, BYTES, 'KeyInfo');
        s.keyName = c.string(end);
        break;
      case 4:
        expectWire(field, wire, VARINT, 'KeyInfo');
        s.dataSize = c.uint64Number(end, 'KeyInfo.dataSize');
        break;
      case 5:
        expectWire(field, wire, VARINT, 'KeyInfo');
        s.type = c.int32(end);
        break;
      case 6:
        expectWire(field, wire, VARINT, 'KeyInfo');
        s.factor = c.int32(end);
        break;
      case 8:
        expectWire(field, wire, VARINT, 'KeyInfo');
        s.creationTime = c.uint64Number(end, 'KeyInfo.creationTime');
        break;
      case 9:
        expectWire(field, wire, VARINT, 'KeyInfo');
        s.modificationTime = c.uint64Number(end, 'KeyInfo.modificationTime');
        break;
      case 17:
        expectWire(field, wire, BYTES, 'KeyInfo');
        s.hasEc = true;
        s.ecData = 0;
        s.ecParity = 0;
        ecReplicationConfig(c, c.delimited(end), s);
        break;
      case 20:
        expectWire(field, wire, BYTES, 'KeyInfo');
        s.ownerName = c.string(end);
        break;
      default:
        // volumeName and bucketName (the caller named them), the block locations, ACLs, metadata,
        // encryption info and ids: skipped, not checked further.
        c.skip(wire, end);
    }
  }
  if ((seen & KEY_INFO_ALL_REQUIRED) !== KEY_INFO_ALL_REQUIRED) {
    const absent = KEY_INFO_REQUIRED.filter(([field]) => (seen & (1 << field)) === 0);
    missing('KeyInfo', absent.map(([, name]) => name).join(', '));
  }
}

/** Every field at its default: a status with nothing sent, or before one is read. */
function empty(): FileStatusFields {
  return {
    hasKeyInfo: false,
    keyName: '',
    dataSize: 0,
    creationTime: 0,
    modificationTime: 0,
    type: DEFAULT_TYPE,
    factor: DEFAULT_FACTOR,
    ownerName: '',
    hasEc: false,
    ecData: 0,
    ecParity: 0,
    blockSize: 0,
    isDirectory: false,
  };
}

/** Reads one `OzoneFileStatusProto`: it replaces an earlier one, as the generated codecs do. */
function fileStatus(c: Cursor, end: number): FileStatusFields {
  const s = empty();
  while (c.pos < end) {
    const tag = c.uint32(end);
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 2) {
      expectWire(field, wire, BYTES, 'OzoneFileStatusProto');
      keyInfo(c, c.delimited(end), s);
    } else if (field === 3) {
      expectWire(field, wire, VARINT, 'OzoneFileStatusProto');
      s.blockSize = c.uint64Number(end, 'OzoneFileStatusProto.blockSize');
    } else if (field === 4) {
      expectWire(field, wire, VARINT, 'OzoneFileStatusProto');
      c.varint(end);
      s.isDirectory = c.lo !== 0; // as protobufjs reads a bool: its low 32 bits
    } else {
      if (field === 0) throw new Malformed('a field numbered 0');
      c.skip(wire, end);
    }
  }
  return s;
}

/**
 * Decodes a GetFileStatusResponse's bytes; a malformed one (its required `status` missing
 * included) is an {@link OzoneProtocolError} naming `address`.
 */
export function decodeGetFileStatusResponse(raw: Buffer, address: string): FileStatusFields {
  const c = new Cursor(raw);
  const end = raw.length;
  let s: FileStatusFields | undefined;
  try {
    while (c.pos < end) {
      const tag = c.uint32(end);
      const field = tag >>> 3;
      const wire = tag & 7;
      if (field === 1) {
        expectWire(field, wire, BYTES, 'GetFileStatusResponse');
        s = fileStatus(c, c.delimited(end));
      } else {
        if (field === 0) throw new Malformed('a field numbered 0');
        c.skip(wire, end);
      }
    }
    return s ?? missing('GetFileStatusResponse', 'status');
  } catch (err) {
    if (err instanceof Malformed)
      throw new OzoneProtocolError(address, `undecodable GetFileStatusResponse: ${err.message}`, err);
    throw err;
  }
}

/** The same fields of a status the generated codecs decoded (`ListStatus` answers, and the tests' reference). */
export function fileStatusFields(status: hadoop.ozone.IOzoneFileStatusProto): FileStatusFields {
  const s = empty();
  s.blockSize = toNumber(status.blockSize);
  s.isDirectory = status.isDirectory ?? false;
  const k = status.keyInfo;
  if (k) {
    s.hasKeyInfo = true;
    s.keyName = k.keyName;
    s.dataSize = toNumber(k.dataSize);
    s.creationTime = toNumber(k.creationTime);
    s.modificationTime = toNumber(k.modificationTime);
    s.type = k.type;
    s.factor = k.factor ?? DEFAULT_FACTOR;
    s.ownerName = k.ownerName ?? '';
    if (k.ecReplicationConfig) {
      s.hasEc = true;
      s.ecData = k.ecReplicationConfig.data;
      s.ecParity = k.ecReplicationConfig.parity;
    }
  }
  return s;
}
