import { gssFailureReason } from './gss-failure.js';
import { decodeLayerMessage, encodeLayerMessage, GSS_MAX_BUFFER, qopsOf } from './gssapi-layer.js';

describe('RFC 4752 layer messages', () => {
  it('encode the layer mask and a 3-byte big-endian buffer size', () => {
    expect([...encodeLayerMessage(2 | 4, 65536)]).toEqual([6, 1, 0, 0]);
    expect([...encodeLayerMessage(1, 0)]).toEqual([1, 0, 0, 0]);
    expect(decodeLayerMessage(encodeLayerMessage(7, GSS_MAX_BUFFER))).toEqual({
      layers: 7,
      maxBuffer: 0xffffff,
      authzid: '',
    });
  });

  it('refuse anything but 4 bytes from a server; read an authorization id from a client', () => {
    expect(decodeLayerMessage(Uint8Array.of(1, 0, 0))).toBeUndefined();
    expect(decodeLayerMessage(Uint8Array.of(1, 0, 0, 0, 0x61))).toBeUndefined();
    expect(decodeLayerMessage(Uint8Array.of(1, 0, 0, 0, 0x61), true)?.authzid).toBe('a');
  });

  it('name the QOPs of a mask', () => {
    expect(qopsOf(1)).toEqual(['auth']);
    expect(qopsOf(6)).toEqual(['auth-int', 'auth-conf']);
    expect(qopsOf(0)).toEqual([]);
  });
});

describe('gssFailureReason (MIT Kerberos texts)', () => {
  it.each([
    [
      'No credentials were supplied, or the credentials were unavailable or inaccessible: No Kerberos credentials available (default cache: FILE:/tmp/x)',
      'no-ticket',
    ],
    ['The referenced credential has expired: Ticket expired', 'expired-ticket'],
    [
      'Unspecified GSS failure: Server hrpc/nohost@EXAMPLE.COM not found in Kerberos database',
      'unknown-server',
    ],
    ['Unspecified GSS failure: Cannot contact any KDC for realm', 'kdc-unreachable'],
    ['A token was invalid: Token header is malformed or corrupt', 'other'],
  ])('%s → %s', (text, reason) => {
    expect(gssFailureReason(text)).toBe(reason);
  });
});
