import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redacted } from '@fastpath/core';
import { Credentials } from './credentials.js';
import { Token } from './token.js';
import { WireFormatError } from './wire-format-error.js';

const token = new Token({
  identifier: Buffer.from([0x08, 0x01, 0x1a, 0x01, 0x61]),
  password: new Redacted(Buffer.from([0xaa, 0xbb, 0xcc])),
  kind: 'OzoneToken',
  service: '127.0.0.1:9862',
});

describe('Credentials (Hadoop token storage)', () => {
  it('writes the WRITABLE layout byte for byte as Hadoop does', () => {
    const bytes = new Credentials({
      tokens: new Map([['127.0.0.1:9862', token]]),
      secretKeys: new Map([['k', new Redacted(Buffer.from([9, 8]))]]),
    }).encode();
    const text = (s: string) => [s.length, ...Buffer.from(s)];
    expect([...bytes]).toEqual([
      ...Buffer.from('HDTS'),
      0x00, // WRITABLE
      1, // one token
      ...text('127.0.0.1:9862'),
      5,
      0x08,
      0x01,
      0x1a,
      0x01,
      0x61, // identifier
      3,
      0xaa,
      0xbb,
      0xcc, // password
      ...text('OzoneToken'),
      ...text('127.0.0.1:9862'),
      1, // one secret key
      ...text('k'),
      2,
      9,
      8,
    ]);
  });

  it('writes the PROTOBUF layout as Hadoop does (varint-delimited CredentialsProto)', () => {
    const bytes = new Credentials({ tokens: new Map([['a', token]]) }).encode('protobuf');
    const tokenProto = [
      0x0a,
      5,
      0x08,
      0x01,
      0x1a,
      0x01,
      0x61,
      0x12,
      3,
      0xaa,
      0xbb,
      0xcc,
      0x1a,
      10,
      ...Buffer.from('OzoneToken'),
      0x22,
      14,
      ...Buffer.from('127.0.0.1:9862'),
    ];
    const kv = [0x0a, 1, 0x61, 0x12, tokenProto.length, ...tokenProto];
    const message = [0x0a, kv.length, ...kv];
    expect([...bytes]).toEqual([...Buffer.from('HDTS'), 0x01, message.length, ...message]);
  });

  it.each<['writable' | 'protobuf']>([['writable'], ['protobuf']])(
    'reads back what it writes (%s)',
    (format) => {
      const original = new Credentials({
        tokens: new Map([
          ['127.0.0.1:9862', token],
          [
            'other',
            new Token({
              identifier: Buffer.alloc(0),
              password: new Redacted(Buffer.alloc(0)),
              kind: 'k',
              service: '',
            }),
          ],
        ]),
        secretKeys: new Map([['s', new Redacted(Buffer.from('secret'))]]),
      });
      const back = Credentials.decode(original.encode(format));
      expect([...back.tokens.keys()]).toEqual(['127.0.0.1:9862', 'other']);
      const t = back.tokens.get('127.0.0.1:9862') as Token;
      expect(t.encode()).toEqual(token.encode());
      expect(back.secretKeys.get('s')?.unwrap().toString()).toBe('secret');
    },
  );

  it('refuses a bad header, an unknown format, truncation and trailing bytes with Hadoop-like words', () => {
    const good = new Credentials({ tokens: new Map([['a', token]]) }).encode();
    expect(() => Credentials.decode(Buffer.from('HDTX\0\0\0'))).toThrow(/Bad header found in token storage/);
    expect(() => Credentials.decode(Buffer.from('HDTS\x07'))).toThrow(/Unknown version 7/);
    for (let cut = 5; cut < good.length; cut++) {
      expect(() => Credentials.decode(good.subarray(0, cut))).toThrow(WireFormatError);
    }
    expect(() => Credentials.decode(Buffer.concat([good, Buffer.of(0)]))).toThrow(WireFormatError);
    const proto = new Credentials({ tokens: new Map([['a', token]]) }).encode('protobuf');
    for (let cut = 5; cut < proto.length; cut++) {
      expect(() => Credentials.decode(proto.subarray(0, cut))).toThrow(WireFormatError);
    }
  });

  it('refuses an entry count past the bound before reading entries', () => {
    const bytes = Buffer.concat([Buffer.from('HDTS\0'), Buffer.from([0x8c, 0x7f, 0xff, 0xff, 0xff])]);
    expect(() => Credentials.decode(bytes)).toThrow(/outside 0\.\.10000/);
  });

  it('never prints a password or secret', () => {
    const c = new Credentials({
      tokens: new Map([['a', token]]),
      secretKeys: new Map([['s', new Redacted(Buffer.from('top-secret'))]]),
    });
    const printed = `${c.toString()} ${JSON.stringify(c)}`;
    expect(printed).not.toMatch(/top-secret|aabbcc|qrvM/);
    expect(c.toString()).toContain('Kind: OzoneToken, Service: 127.0.0.1:9862');
  });

  it('writes its file whole, readable by its owner only', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'credentials-'));
    try {
      const path = join(dir, 'tokens');
      await new Credentials({ tokens: new Map([['a', token]]) }).writeFile(path);
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      const back = await Credentials.readFile(path);
      expect(back.tokens.get('a')?.encode()).toEqual(token.encode());
      expect((await readFile(path)).subarray(0, 5).toString('latin1')).toBe('HDTS\0');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
