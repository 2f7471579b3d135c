import { InvalidOptionError } from '@fastpath/core';
import {
  APPEND_LOG_STATUS_QUERY,
  appendLogReadQuery,
  decodeAppendLogStatus,
  decodeAppendLogWriteReply,
} from './append-log-messages.js';

describe('the append-only log messages', () => {
  it('encodes a read as position then length, uint64 big-endian', () => {
    expect(Buffer.from(appendLogReadQuery(0x0102, 5n)).toString('hex')).toBe(
      '0000000000000102' + '0000000000000005',
    );
    expect(Buffer.from(appendLogReadQuery((1n << 64n) - 1n, 0)).toString('hex')).toBe(
      'ff'.repeat(8) + '00'.repeat(8),
    );
    expect(APPEND_LOG_STATUS_QUERY.byteLength).toBe(0);
  });

  it('decodes a write reply and a status answer from a view inside a larger buffer', () => {
    const bytes = Buffer.from('ee' + '000000000000002a' + '0000000000000400', 'hex').subarray(1);
    expect(decodeAppendLogWriteReply(bytes)).toEqual({ index: 42n, position: 1024n });
    expect(decodeAppendLogStatus(bytes)).toEqual({ lastAppliedIndex: 42n, length: 1024n });
  });

  it('refuses what is not a uint64 or not 16 bytes', () => {
    expect(() => appendLogReadQuery(-1, 1)).toThrow(InvalidOptionError);
    expect(() => appendLogReadQuery(0, 1n << 64n)).toThrow(InvalidOptionError);
    expect(() => appendLogReadQuery(0.5, 1)).toThrow(InvalidOptionError);
    expect(() => decodeAppendLogWriteReply(new Uint8Array(15))).toThrow(InvalidOptionError);
    expect(() => decodeAppendLogStatus(new Uint8Array(17))).toThrow(InvalidOptionError);
  });
});
