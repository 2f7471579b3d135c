import { bytesToUuid, peerIdToBytes, uuidToBytes } from './raft-ids.js';

describe('Ratis ids', () => {
  it('put a UUID on the wire as its most then least significant 8 bytes, big-endian', () => {
    const uuid = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
    const bytes = uuidToBytes(uuid);
    expect(bytes.toString('hex')).toBe('0f1e2d3c4b5a69788796a5b4c3d2e1f0');
    expect(bytes.readBigUInt64BE(0)).toBe(0x0f1e2d3c4b5a6978n);
    expect(bytesToUuid(bytes)).toBe(uuid);
    expect(bytesToUuid(uuidToBytes(uuid.toUpperCase()))).toBe(uuid);
  });

  it('refuse what is not a UUID with a typed error', () => {
    expect(() => uuidToBytes('0f1e2d3c4b5a69788796a5b4c3d2e1f0')).toThrow(
      expect.objectContaining({ code: 'ERR_RATIS_INVALID_ARGUMENT' }) as Error,
    );
  });

  it('carry a peer id as the UTF-8 bytes of its string', () => {
    expect(peerIdToBytes('5f3c…').toString('hex')).toBe(Buffer.from('5f3c…', 'utf8').toString('hex'));
  });
});
