import {
  type DigestParams,
  DigestLayerError,
  digestResponse,
  digestRspAuth,
  digestSecurityLayer,
  parseDigestDirectives,
} from './digest-md5.js';

// RFC 2831 §4's worked example (md5-sess, qop auth).
const RFC_EXAMPLE: DigestParams = {
  username: 'chris',
  realm: 'elwood.innosoft.com',
  password: 'secret',
  nonce: 'OA6MG9tEQGm2hh',
  cnonce: 'OA6MHXh6VqTrRk',
  nc: '00000001',
  qop: 'auth',
  digestUri: 'imap/elwood.innosoft.com',
};

describe('DIGEST-MD5', () => {
  it('computes RFC 2831’s example response and rspauth', () => {
    expect(digestResponse(RFC_EXAMPLE)).toBe('d388dad90d4bbd760a152321f2143af7');
    expect(digestRspAuth(RFC_EXAMPLE)).toBe('ea40f60335c427b5527b84dbabcdfffd');
  });

  it('parses quoted values with escapes and commas, keeps the first of a repeated directive', () => {
    const d = parseDigestDirectives(
      Buffer.from(
        'realm="a\\"b",realm="second",qop="auth,auth-int",nonce="n",algorithm=md5-sess, charset=utf-8',
      ),
    );
    expect(d.get('realm')).toBe('a"b');
    expect(d.get('qop')).toBe('auth,auth-int');
    expect(d.get('algorithm')).toBe('md5-sess');
    expect(d.get('charset')).toBe('utf-8');
    expect(() => parseDigestDirectives(Buffer.from('nonce="unterminated'))).toThrow(/unterminated/);
  });

  it.each(['auth-int', 'auth-conf'] as const)(
    '%s: each side unwraps the other’s messages in order',
    (qop) => {
      const params = { ...RFC_EXAMPLE, qop };
      const client = digestSecurityLayer(params, 'client');
      const server = digestSecurityLayer(params, 'server');
      for (const size of [0, 1, 7, 8, 9, 4096]) {
        const message = Buffer.alloc(size, size % 251);
        const wrapped = client.wrap(message);
        if (qop === 'auth-conf' && size >= 8) expect(Buffer.from(wrapped).includes(message)).toBe(false);
        expect(Buffer.from(server.unwrap(wrapped))).toEqual(message);
        expect(Buffer.from(client.unwrap(server.wrap(message)))).toEqual(message);
      }
    },
  );

  it.each(['auth-int', 'auth-conf'] as const)(
    '%s: a tampered, replayed or reflected message is refused',
    (qop) => {
      const params = { ...RFC_EXAMPLE, qop };
      const client = digestSecurityLayer(params, 'client');
      const server = digestSecurityLayer(params, 'server');
      const first = Buffer.from(client.wrap(Buffer.from('first message, sixteen+')));
      const tampered = Buffer.from(first);
      tampered[2] = (tampered[2] as number) ^ 1;
      expect(() => server.unwrap(tampered)).toThrow(DigestLayerError);
      // A fresh server accepts the original; a second delivery of it is a replay.
      const fresh = digestSecurityLayer(params, 'server');
      fresh.unwrap(first);
      expect(() => fresh.unwrap(first)).toThrow(/out of sequence/);
      // The client's own message sent back to it: keys are per direction.
      expect(() => digestSecurityLayer(params, 'client').unwrap(first)).toThrow(DigestLayerError);
      expect(() => server.unwrap(Buffer.alloc(5))).toThrow(/too short/);
    },
  );
});
