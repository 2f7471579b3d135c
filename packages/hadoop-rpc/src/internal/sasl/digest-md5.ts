// DIGEST-MD5 (RFC 2831) as Hadoop's TOKEN method speaks it (spec §3.4): the md5-sess response and
// rspauth, and the auth-int / auth-conf security layer. One copy for both ends: the client mechanism
// (token-sasl-mechanism.ts) and the testing server's TOKEN mechanism use these functions, each with
// its own direction of keys.
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import type { Cipher, Decipher } from 'node:crypto';
import type { SaslSecurityLayer } from '../../sasl-mechanism.js';

/** The SASL QOP names, in the order of `hadoop.rpc.protection`'s values (spec §3.7). */
export type SaslQop = 'auth' | 'auth-int' | 'auth-conf';

/** The only cipher offered for auth-conf: the one Node's OpenSSL has without the legacy provider (spec §3.4). */
export const DIGEST_CIPHER = '3des';

const md5 = (...parts: (Buffer | string)[]): Buffer => {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest();
};

/** Parses a DIGEST-MD5 challenge or response: `key=value` or `key="quoted"` pairs, comma separated. */
export function parseDigestDirectives(bytes: Uint8Array): Map<string, string> {
  const text = Buffer.from(bytes).toString('utf8');
  const out = new Map<string, string>();
  let i = 0;
  while (i < text.length) {
    while (i < text.length && (text[i] === ',' || text[i] === ' ' || text[i] === '\t')) i++;
    if (i >= text.length) break;
    const eq = text.indexOf('=', i);
    if (eq < 0) throw new Error('a directive without "="');
    const key = text.slice(i, eq).trim().toLowerCase();
    i = eq + 1;
    let value = '';
    if (text[i] === '"') {
      i++;
      for (; i < text.length && text[i] !== '"'; i++) {
        if (text[i] === '\\') i++;
        value += text[i] ?? '';
      }
      if (i >= text.length) throw new Error('an unterminated quoted value');
      i++;
    } else {
      const end = text.indexOf(',', i);
      value = text.slice(i, end < 0 ? text.length : end).trim();
      i = end < 0 ? text.length : end;
    }
    // The first of a repeated directive wins (a challenge may list several realms).
    if (!out.has(key)) out.set(key, value);
  }
  return out;
}

const quote = (v: string): string => `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`;

/** What both sides must agree on to compute the response. */
export interface DigestParams {
  username: string;
  realm: string;
  password: string;
  nonce: string;
  cnonce: string;
  nc: string;
  qop: SaslQop;
  digestUri: string;
}

/** md5-sess HA1 as raw bytes: MD5(MD5(user:realm:password) ":" nonce ":" cnonce) (no authzid). */
function ha1(p: DigestParams): Buffer {
  return md5(md5(`${p.username}:${p.realm}:${p.password}`), `:${p.nonce}:${p.cnonce}`);
}

function digestHex(p: DigestParams, a2Prefix: string): string {
  const a2 = `${a2Prefix}:${p.digestUri}${p.qop === 'auth' ? '' : ':00000000000000000000000000000000'}`;
  const kd = `${ha1(p).toString('hex')}:${p.nonce}:${p.nc}:${p.cnonce}:${p.qop}:${md5(a2).toString('hex')}`;
  return md5(kd).toString('hex');
}

/** The `response` directive the client sends. */
export const digestResponse = (p: DigestParams): string => digestHex(p, 'AUTHENTICATE');

/** The `rspauth` value the server returns in SUCCESS. */
export const digestRspAuth = (p: DigestParams): string => digestHex(p, '');

/** Constant-time comparison of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A fresh nonce or cnonce: base64 of 32 random bytes, as the JDK makes them. */
export const newNonce = (): string => randomBytes(32).toString('base64');

/** The client's response text (RFC 2831 §2.1.2). */
export function formatDigestResponse(
  p: DigestParams,
  cipher: string | undefined,
  maxBufBytes: number,
): Buffer {
  const parts = [
    'charset=utf-8',
    `username=${quote(p.username)}`,
    `realm=${quote(p.realm)}`,
    `nonce=${quote(p.nonce)}`,
    `nc=${p.nc}`,
    `cnonce=${quote(p.cnonce)}`,
    `digest-uri=${quote(p.digestUri)}`,
    `maxbuf=${maxBufBytes}`,
    `response=${digestResponse(p)}`,
    `qop=${p.qop}`,
    ...(cipher === undefined ? [] : [`cipher=${quote(cipher)}`]),
  ];
  return Buffer.from(parts.join(','), 'utf8');
}

/** The server's challenge text (RFC 2831 §2.1.1). */
export function formatDigestChallenge(realm: string, nonce: string, qops: readonly SaslQop[]): Buffer {
  const parts = [
    `realm=${quote(realm)}`,
    `nonce=${quote(nonce)}`,
    `qop=${quote(qops.join(','))}`,
    'maxbuf=65536',
    'charset=utf-8',
    'algorithm=md5-sess',
    ...(qops.includes('auth-conf') ? [`cipher=${quote(DIGEST_CIPHER)}`] : []),
  ];
  return Buffer.from(parts.join(','), 'utf8');
}

const MAGIC = {
  signClient: 'Digest session key to client-to-server signing key magic constant',
  signServer: 'Digest session key to server-to-client signing key magic constant',
  sealClient: 'Digest H(A1) to client-to-server sealing key magic constant',
  sealServer: 'Digest H(A1) to server-to-client sealing key magic constant',
};

/** 7 key bytes → 8 DES key bytes, 7 bits each followed by an odd-parity bit. */
function desKey(seven: Buffer): Buffer {
  let bits = 0n;
  for (const b of seven) bits = (bits << 8n) | BigInt(b);
  const out = Buffer.alloc(8);
  for (let i = 0; i < 8; i++) {
    const b = Number((bits >> BigInt(49 - 7 * i)) & 0x7fn) << 1;
    let ones = 0;
    for (let v = b; v; v >>= 1) ones += v & 1;
    out[i] = b | (ones % 2 === 0 ? 1 : 0);
  }
  return out;
}

/** 3des (two-key EDE, CBC) from a sealing key: key halves from bytes 0–6 and 7–13, IV from 8–15. */
function tripleDesParts(kc: Buffer): { key: Buffer; iv: Buffer } {
  return {
    key: Buffer.concat([desKey(kc.subarray(0, 7)), desKey(kc.subarray(7, 14))]),
    iv: kc.subarray(8, 16),
  };
}

const MAC_BYTES = 10;
const TRAILER_BYTES = 6; // message type 0x0001 and a 4-byte sequence number

/** Why a wrapped message was refused. */
export class DigestLayerError extends Error {}

/** The receive buffer a DIGEST-MD5 peer has when its challenge or response names none (RFC 2831). */
export const DIGEST_DEFAULT_MAXBUF = 65536;

/**
 * The security layer of a finished exchange, for one end: `side` is the end that wraps with the
 * client-to-server keys (`client`) or the server-to-client keys (`server`). Sequence numbers start
 * at 0 in each direction, and the 3des CBC state runs on across messages. `peerMaxBuf` is the
 * other end's `maxbuf`, which bounds a whole wrapped message.
 */
export function digestSecurityLayer(
  p: DigestParams,
  side: 'client' | 'server',
  peerMaxBuf = DIGEST_DEFAULT_MAXBUF,
): SaslSecurityLayer {
  const h = ha1(p);
  const kic = md5(h, MAGIC.signClient);
  const kis = md5(h, MAGIC.signServer);
  const sendMac = side === 'client' ? kic : kis;
  const recvMac = side === 'client' ? kis : kic;
  let enc: Cipher | undefined;
  let dec: Decipher | undefined;
  if (p.qop === 'auth-conf') {
    const c = tripleDesParts(md5(h, MAGIC.sealClient));
    const s = tripleDesParts(md5(h, MAGIC.sealServer));
    const out = side === 'client' ? c : s;
    const inn = side === 'client' ? s : c;
    enc = createCipheriv('des-ede-cbc', out.key, out.iv).setAutoPadding(false);
    dec = createDecipheriv('des-ede-cbc', inn.key, inn.iv).setAutoPadding(false);
  }
  let sendSeq = 0;
  let recvSeq = 0;
  const mac = (key: Buffer, seq: Buffer, msg: Uint8Array): Buffer =>
    createHmac('md5', key).update(seq).update(msg).digest().subarray(0, MAC_BYTES);
  return {
    // A message adds at most 8 bytes of padding, the MAC and the trailer to its plain bytes.
    maxWrapBytes: peerMaxBuf - 8 - MAC_BYTES - TRAILER_BYTES,
    wrap(plain: Uint8Array): Uint8Array {
      const seq = Buffer.alloc(4);
      seq.writeUInt32BE(sendSeq++ >>> 0);
      const tag = mac(sendMac, seq, plain);
      const trailer = Buffer.concat([Buffer.from([0, 1]), seq]);
      if (enc === undefined) return Buffer.concat([plain, tag, trailer]);
      const padBytes = 8 - ((plain.length + MAC_BYTES) % 8);
      const body = Buffer.concat([plain, Buffer.alloc(padBytes, padBytes), tag]);
      return Buffer.concat([enc.update(body), trailer]);
    },
    unwrap(wrapped: Uint8Array): Uint8Array {
      const w = Buffer.from(wrapped.buffer, wrapped.byteOffset, wrapped.byteLength);
      if (w.length < MAC_BYTES + TRAILER_BYTES) throw new DigestLayerError('a wrapped message too short');
      const trailer = w.subarray(w.length - TRAILER_BYTES);
      if (trailer[0] !== 0 || trailer[1] !== 1)
        throw new DigestLayerError('a wrapped message of an unknown type');
      const seq = trailer.subarray(2);
      if (seq.readUInt32BE(0) !== recvSeq >>> 0)
        throw new DigestLayerError('a wrapped message out of sequence');
      let body = w.subarray(0, w.length - TRAILER_BYTES);
      if (dec !== undefined) {
        if (body.length % 8 !== 0)
          throw new DigestLayerError('an encrypted message not a whole number of blocks');
        body = dec.update(body);
      }
      const tag = body.subarray(body.length - MAC_BYTES);
      let msg = body.subarray(0, body.length - MAC_BYTES);
      if (dec !== undefined) {
        const padBytes = msg.length > 0 ? (msg[msg.length - 1] as number) : 0;
        if (padBytes < 1 || padBytes > 8 || padBytes > msg.length) {
          throw new DigestLayerError('a decrypted message with bad padding');
        }
        msg = msg.subarray(0, msg.length - padBytes);
      }
      if (!timingSafeEqual(mac(recvMac, seq, msg), tag)) {
        throw new DigestLayerError('a wrapped message whose integrity check failed');
      }
      recvSeq++;
      return Buffer.from(msg);
    },
  };
}
