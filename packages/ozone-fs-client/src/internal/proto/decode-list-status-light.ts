// A hand-written decoder for the OM's ListStatusLightResponse, the body of every page of an FSO
// key listing: a page of 1,000 entries through the generated codecs costs a protobufjs message
// and four Longs per entry, and that decoding and its garbage were most of a listing's client CPU.
// This reads each entry's few fields straight into numbers and strings. The generated codecs stay
// the reference: a property test decodes random pages with both and compares.
import { OzoneProtocolError } from '../../ozone-errors.js';
import { BYTES, Cursor, expectWire, Malformed, VARINT } from './proto-cursor.js';

/** One `OzoneFileStatusProtoLight` as a listing needs it (a field not sent has protobuf's default). */
export interface LightStatus {
  /** `basicKeyInfo.keyName`: the entry's full name in its bucket. */
  keyName: string;
  dataSize: number;
  /** ms since the epoch. */
  creationTime: number;
  modificationTime: number;
  /** `hdds.ReplicationType`'s number. */
  type: number;
  isDirectory: boolean;
}

/** protobuf's default of `BasicKeyInfo.type`: its enum's first value (RATIS). */
const DEFAULT_REPLICATION_TYPE = 1;

function basicKeyInfo(c: Cursor, end: number, into: LightStatus): void {
  while (c.pos < end) {
    const tag = c.uint32(end);
    const field = tag >>> 3;
    const wire = tag & 7;
    switch (field) {
      case 1:
        expectWire(field, wire, BYTES, 'BasicKeyInfo');
        into.keyName = c.string(end);
        break;
      case 2:
        expectWire(field, wire, VARINT, 'BasicKeyInfo');
        into.dataSize = c.uint64Number(end, 'BasicKeyInfo.dataSize');
        break;
      case 3:
        expectWire(field, wire, VARINT, 'BasicKeyInfo');
        into.creationTime = c.uint64Number(end, 'BasicKeyInfo.creationTime');
        break;
      case 4:
        expectWire(field, wire, VARINT, 'BasicKeyInfo');
        into.modificationTime = c.uint64Number(end, 'BasicKeyInfo.modificationTime');
        break;
      case 5:
        expectWire(field, wire, VARINT, 'BasicKeyInfo');
        into.type = c.int32(end);
        break;
      default:
        if (field === 0) throw new Malformed('a field numbered 0');
        c.skip(wire, end);
    }
  }
}

/** Reads one `OzoneFileStatusProtoLight` into `s`, every field first set to its default. */
function status(c: Cursor, end: number, s: LightStatus): void {
  s.keyName = '';
  s.dataSize = 0;
  s.creationTime = 0;
  s.modificationTime = 0;
  s.type = DEFAULT_REPLICATION_TYPE;
  s.isDirectory = false;
  while (c.pos < end) {
    const tag = c.uint32(end);
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 3) {
      expectWire(field, wire, BYTES, 'OzoneFileStatusProtoLight');
      // Merged as protobuf merges a repeated embedded message: later fields win.
      basicKeyInfo(c, c.delimited(end), s);
    } else if (field === 5) {
      expectWire(field, wire, VARINT, 'OzoneFileStatusProtoLight');
      c.varint(end);
      s.isDirectory = c.lo !== 0; // as protobufjs reads a bool: its low 32 bits
    } else {
      if (field === 0) throw new Malformed('a field numbered 0');
      c.skip(wire, end);
    }
  }
}

/** The statuses (field 1) in a ListStatusLightResponse, each checked for its wire type. */
function countStatuses(c: Cursor, end: number): number {
  let n = 0;
  while (c.pos < end) {
    const tag = c.uint32(end);
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 0) throw new Malformed('a field numbered 0');
    if (field === 1) {
      expectWire(field, wire, BYTES, 'ListStatusLightResponse');
      n++;
    }
    c.skip(wire, end);
  }
  return n;
}

/**
 * Decodes a ListStatusLightResponse's bytes, each status turned into what the caller keeps by
 * `make`; a malformed one is an {@link OzoneProtocolError} naming `address`. `make` is handed one
 * status object reused for every entry: a page of 1,000 entries leaves only what the caller keeps
 * as garbage.
 */
export function decodeListStatusLight<T>(
  raw: Buffer,
  address: string,
  make: (status: Readonly<LightStatus>) => T,
): T[] {
  const c = new Cursor(raw);
  const end = raw.length;
  const scratch: LightStatus = {
    keyName: '',
    dataSize: 0,
    creationTime: 0,
    modificationTime: 0,
    type: DEFAULT_REPLICATION_TYPE,
    isDirectory: false,
  };
  try {
    // Counted first, so that the page's array is made once at its size: grown by pushes, a
    // 1,000-entry page's array is reallocated nine times, 26 KB of garbage per page.
    const out = new Array<T>(countStatuses(c, end));
    c.pos = 0;
    let n = 0;
    while (c.pos < end) {
      const tag = c.uint32(end);
      const field = tag >>> 3;
      const wire = tag & 7;
      if (field === 1) {
        status(c, c.delimited(end), scratch);
        out[n++] = make(scratch);
      } else {
        if (field === 0) throw new Malformed('a field numbered 0');
        c.skip(wire, end);
      }
    }
    return out;
  } catch (err) {
    if (err instanceof Malformed)
      throw new OzoneProtocolError(address, `undecodable ListStatusLightResponse: ${err.message}`, err);
    throw err;
  }
}
